/** Reading the project's Markdown pages in tests: headings, sections and table rows (CommonMark ATX headings). */

/** The lines of `text` outside fenced code blocks (``` or ~~~), in order. */
export function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').filter((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return false;
    }
    return fence === undefined;
  });
}

/** The text of every ATX heading (`## Heading`) outside code blocks, without its `#` marks. */
export function headings(text: string): string[] {
  return proseLines(text)
    .map((line) => /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1])
    .filter((heading): heading is string => heading !== undefined);
}

/**
 * The lines of the section under the heading `heading` (to the next heading of the same or a higher level).
 * @throws Error when `text` has no such heading.
 */
export function section(text: string, heading: string): string[] {
  const lines = proseLines(text);
  const start = lines.findIndex((line) => /^ {0,3}#{1,6}\s/.test(line) && headings(line)[0] === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = /^ {0,3}(#+)/.exec(lines[start] as string)?.[1]?.length ?? 1;
  const end = lines.findIndex(
    (line, index) =>
      index > start && (/^ {0,3}(#+)\s/.exec(line)?.[1]?.length ?? Number.POSITIVE_INFINITY) <= level,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The body rows of the tables among `lines`, each as its trimmed cells (header and `---` rows left out). */
export function tableRows(lines: readonly string[]): string[][] {
  const rows = lines
    .filter((line) => line.trimStart().startsWith('|'))
    .map((line) =>
      line
        .trim()
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const bodies: string[][] = [];
  rows.forEach((row, index) => {
    const next = rows[index + 1];
    const isHeader = next?.every((cell) => /^:?-+:?$/.test(cell)) ?? false;
    if (!isHeader && !row.every((cell) => /^:?-+:?$/.test(cell))) bodies.push(row);
  });
  return bodies;
}
