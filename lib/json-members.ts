/**
 * Member names of JSON text appearing twice in one object: docs/contract.md "InventoryUpdate" (RFC 7493 §2.3),
 * docs/architecture.md "Request bodies in linear time".
 */

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;

/** What {@link scanMembers} finds: the first name repeated within an object, or else the deepest nesting. */
export type MemberScan = { duplicate: string } | { depth: number };

/**
 * The first member name (in text order) that repeats a name of the same object, compared after escapes are
 * decoded (`"\u0071uantity"` is `quantity`), at any depth; when every object's names are distinct, the depth
 * of the deepest array or object (0 for a bare value). One pass over `text` with an explicit stack (no
 * recursion, so any depth), each string skipped with `indexOf`: time and memory linear in the text.
 * @param text JSON text. On other text the scan ends too, but what it finds means nothing.
 * @throws SyntaxError for a member name with a malformed escape (so the text is not JSON).
 */
export function scanMembers(text: string): MemberScan {
  // One entry per open container: for an object its names so far (none: false; one: the name; more: a Set, made
  // only then, so the many one-member objects of a deep body allocate nothing), null for an array.
  const open: (Set<string> | string | false | null)[] = [];
  let nameNext = false;
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === quote) {
      const end = closingQuote(text, at);
      if (nameNext) {
        const raw = text.slice(at + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
        const names = open.at(-1);
        if (names === name || (names instanceof Set && names.has(name))) return { duplicate: name };
        if (names instanceof Set) names.add(name);
        else open[open.length - 1] = names === false ? name : new Set([names as string, name]);
      }
      nameNext = false;
      at = end;
    } else if (code === openBrace || code === openBracket) {
      depth = Math.max(depth, open.push(code === openBrace ? false : null));
      nameNext = code === openBrace;
    } else if (code === closeBrace || code === closeBracket) {
      open.pop();
    } else if (code === comma) {
      nameNext = open.at(-1) !== null;
    }
  }
  return { depth };
}

/**
 * The index of the quote closing the string that opens at `start`: the next quote not escaped, that is not
 * preceded by an odd run of backslashes (the text's length when there is none). Each run is counted once, for
 * the quote that ends it.
 */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    if (end < 0) return text.length;
    let before = end - 1;
    while (text.charCodeAt(before) === backslash) before--;
    if ((end - 1 - before) % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}
