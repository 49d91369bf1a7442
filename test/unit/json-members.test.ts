/**
 * A member name twice in one JSON object (docs/contract.md "InventoryUpdate", RFC 7493 §2.3):
 * lib/json-members.ts (and the suites' oracle) against trees whose text is written member by member, so that the expected answer is
 * known from the tree itself (the first repeat met while writing is the first in the text).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { duplicateMember } from '#lib/json-members.ts';
import { contractDuplicateMember } from '#test/support/contract-oracle.ts';

/** A JSON value as written: a leaf's text, an array, or an object's members in order (names may repeat). */
type Tree = { leaf: string } | { array: Tree[] } | { members: [string, Tree][] };

const names = fc.constantFrom('a', 'b', 'quantity', '', 'é', '"', '\\', 'a b', '{', ',');
const { tree } = fc.letrec<{ tree: Tree }>((self) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('1', '"x"', '"a\\"b"', '"\\\\"', 'null', '"{,}"', '"[,]"').map((leaf) => ({ leaf })),
    fc.array(self('tree'), { maxLength: 4 }).map((array) => ({ array })),
    fc.array(fc.tuple(names, self('tree')), { maxLength: 4 }).map((members) => ({ members })),
  ),
}));

/** Writes `tree` as JSON, a name escaped (`\uXXXX` throughout) when `escaped` says so; returns the first repeat. */
function write(tree: Tree, escaped: () => boolean): { text: string; repeat?: string } {
  if ('leaf' in tree) return { text: tree.leaf };
  let repeat: string | undefined;
  const parts: string[] = [];
  const seen = new Set<string>();
  const entries = 'array' in tree ? tree.array.map((value) => [undefined, value] as const) : tree.members;
  for (const [name, value] of entries) {
    let text = '';
    if (name !== undefined) {
      if (seen.has(name)) repeat ??= name;
      seen.add(name);
      const unicode = [...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      text = `${escaped() ? `"${unicode}"` : JSON.stringify(name)} : `;
    }
    const inner = write(value, escaped);
    repeat ??= inner.repeat;
    parts.push(text + inner.text);
  }
  const [open, close] = 'array' in tree ? ['[', ']'] : ['{', '}'];
  return { text: `${open} ${parts.join(' ,\n')} ${close}`, ...(repeat === undefined ? {} : { repeat }) };
}

describe('duplicateMember', () => {
  test('finds the first name repeated within one object, at any depth, escapes decoded; none otherwise', () => {
    fc.assert(
      fc.property(tree, fc.infiniteStream(fc.boolean()), (value, coin) => {
        const { text, repeat } = write(value, () => coin.next().value);
        JSON.parse(text);
        expect(duplicateMember(text)).toBe(repeat);
        // The suites' oracle, another reading of the same rule, agrees.
        expect(contractDuplicateMember(text)).toBe(repeat);
      }),
      { numRuns: 2000 },
    );
  });

  test.each([
    ['{"quantity": 1, "quantity": 7}', 'quantity'],
    ['{"quantity": 1, "\\u0071uantity": 7}', 'quantity'],
    ['[{"a": 1}, {"a": 2}]', undefined],
    ['{"a": {"b": 1}, "b": 2}', undefined],
    ['{"a": {"b": 1, "b": 2}, "a": 3}', 'b'],
    ['{"a\\\\": 1, "a\\\\": 2}', 'a\\'],
    ['{"a": "\\"b\\":", "b": 1}', undefined],
    ['{"": 1, "": 2}', ''],
    [`${'['.repeat(100_000)}{"x": 1, "x": 2}${']'.repeat(100_000)}`, 'x'],
  ])('%s -> %s', (text, name) => {
    expect(duplicateMember(text)).toBe(name);
  });
});
