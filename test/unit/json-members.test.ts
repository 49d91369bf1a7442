/**
 * A member name twice in one JSON object (docs/contract.md "InventoryUpdate", RFC 7493 §2.3):
 * lib/json-members.ts (and the suites' oracle) against trees whose text is written member by member, so that the expected answer is
 * known from the tree itself (the first repeat met while writing is the first in the text).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { scanMembers } from '#lib/json-members.ts';
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

/**
 * Writes `tree` as JSON, a name escaped (`\uXXXX` throughout) when `escaped` says so; returns the first repeat
 * and the depth.
 */
function write(tree: Tree, escaped: () => boolean): { text: string; repeat?: string; depth: number } {
  if ('leaf' in tree) return { text: tree.leaf, depth: 0 };
  let repeat: string | undefined;
  let depth = 1;
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
    depth = Math.max(depth, inner.depth + 1);
    parts.push(text + inner.text);
  }
  const [open, close] = 'array' in tree ? ['[', ']'] : ['{', '}'];
  return {
    text: `${open} ${parts.join(' ,\n')} ${close}`,
    depth,
    ...(repeat === undefined ? {} : { repeat }),
  };
}

describe('scanMembers', () => {
  test('finds the first name repeated within one object, at any depth, escapes decoded; else the depth', () => {
    fc.assert(
      fc.property(tree, fc.infiniteStream(fc.boolean()), (value, coin) => {
        const { text, repeat, depth } = write(value, () => coin.next().value);
        JSON.parse(text);
        expect(scanMembers(text)).toEqual(repeat === undefined ? { depth } : { duplicate: repeat });
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
    const scan = scanMembers(text);
    expect('duplicate' in scan ? scan.duplicate : undefined).toBe(name);
  });

  test.each([
    ['5', 0],
    ['{}', 1],
    ['[[], {"a": [{"b": "[[[["}]}]', 4],
    [`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, 100_000],
  ])('%s has depth %i', (text, depth) => {
    expect(scanMembers(text)).toEqual({ depth });
  });

  test.each(['{"a": "no closing quote', '"\\', '}}]]{', '{"a\\": 1, "b'])(
    'ends on text that is not JSON (%s)',
    (text) => {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(typeof scanMembers(text)).toBe('object');
    },
  );
});
