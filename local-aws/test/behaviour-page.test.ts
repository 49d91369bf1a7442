/**
 * behaviour.md stays checkable: every row names its AWS source (a URL, or says that none was found or what it
 * is inferred from), and names at least one test file of this package (a path from its folder), each of which
 * exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const packageFolder = new URL('../', import.meta.url);
const page = readFileSync(new URL('behaviour.md', packageFolder), 'utf8');

/** The table rows: `| R1 | behaviour | AWS (source) | local API | test |`. */
const rows = page
  .split('\n')
  .filter((line) => /^\| [A-Z]\d+ +\|/.test(line))
  .map((line) => {
    const [id = '', behaviour = '', aws = '', local = '', test = ''] = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
    return { id, behaviour, aws, local, test };
  });

describe('behaviour.md', () => {
  it('has rows with unique ids', () => {
    expect(rows.length).toBeGreaterThan(20);
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
  });

  it.each(rows.map((row) => [row.id, row] as const))('%s cites its source', (_id, row) => {
    expect(row.aws).toMatch(/https:\/\/|no (AWS document or capture|source|capture) found|inferred/i);
  });

  it.each(rows.map((row) => [row.id, row] as const))('%s names a test that exists', (_id, row) => {
    const files = [...row.test.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((match) => match[1] as string);
    expect(files.length, row.test).toBeGreaterThan(0);
    for (const file of files) expect(existsSync(new URL(file, packageFolder)), file).toBe(true);
  });
});
