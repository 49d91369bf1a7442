/**
 * Hostile `If-Match` headers on updateInventory (docs/contract.md "Inventory semantics"; RFC 9110 §13.1.1),
 * property-based: 400 generated header sets per run, each on an otherwise valid update of an existing pet,
 * with 0 to 3 `If-Match` field lines in any name case: the entry's current tag, stale tags, weak tags, `*`,
 * lists with empty elements and commas inside tags, tags the service never issues, values of length 0 and 256,
 * invisible characters (as their UTF-8 bytes) before, after and inside the current tag, random printable text.
 *
 * Oracle (test/support/contract-oracle.ts `contractIfMatch`, independent of lib/): no header or `*`: 200;
 * a list holding the current strong tag: 200; another well-formed list: 412 `precondition_failed`; anything
 * else: 400 `invalid_request`. Never a 5xx; the table changes only by accepted updates (model check after
 * every request), and each 200 carries the new ETag.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { contractIfMatch, expectContractError, observe } from '#test/support/contract-oracle.ts';
import { modelledSuite } from '#test/support/inventory-model.ts';
import { sendJson } from '#test/support/raw-http.ts';

const hostile = modelledSuite([{ petId: '7', quantity: 1, status: 'available' }]);

/** The strong tag the contract gives the entry's current state. */
function currentTag(): string {
  const item = hostile.model.get('7');
  return `"${item?.quantity}-${item?.status}"`;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 30,
});
const ows = fc.constantFrom('', ' ', '\t', '  ');
/**
 * Invisible characters as their UTF-8 bytes on the wire (zero-width space, no-break space, soft hyphen,
 * byte-order mark, word joiner), each byte a character of the latin1 header string Node sends.
 */
const invisibles = ['\u200b', '\u00a0', '\u00ad', '\ufeff', '\u2060'].map((char) =>
  Buffer.from(char, 'utf8').toString('latin1'),
);
/** One list element, as a description resolved against the current state when sent. */
const element = fc.oneof(
  { weight: 4, arbitrary: fc.constant('current') },
  { weight: 2, arbitrary: fc.constant('weak-current') },
  fc
    .tuple(fc.nat({ max: 5 }), fc.constantFrom('available', 'pending', 'sold'))
    .map(([q, s]) => `"${q}-${s}"`),
  fc.constantFrom('""', '"xyzzy"', '"a,b"', '"1-available', '1-available', 'W/1', '*', '"01-available"'),
  fc.constantFrom('"2147483648-sold"', '"3-Available"', 'w/"1-available"', ''),
  fc.constantFrom(`"${'1'.repeat(254)}"`, '1'.repeat(256), `W/"${'a'.repeat(252)}"`),
  fc
    .tuple(fc.constantFrom(...invisibles), fc.constantFrom('before', 'after', 'inside'))
    .map(([invisible, where]) => `invisible:${where}:${invisible}`),
  printable,
);
const fieldValue = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.tuple(ows, element, ows), { minLength: 1, maxLength: 4 }) },
  fc.constant([['', '*', ''] as [string, string, string]]),
);
const headerName = fc.constantFrom('If-Match', 'if-match', 'IF-MATCH', 'iF-mAtCh');

/** Resolves a generated element description to its text. */
function elementText(description: string): string {
  if (description === 'current') return currentTag();
  if (description === 'weak-current') return `W/${currentTag()}`;
  const invisible = /^invisible:(before|after|inside):(.*)$/s.exec(description);
  if (invisible) {
    const [, where, bytes = ''] = invisible;
    const tag = currentTag();
    if (where === 'before') return bytes + tag;
    if (where === 'after') return tag + bytes;
    return `${tag.slice(0, -1)}${bytes}"`;
  }
  return description;
}

describe('hostile If-Match headers', () => {
  test('every generated If-Match gets the contract answer and changes only what an accepted update changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(headerName, fieldValue), { maxLength: 3 }),
        fc.nat({ max: 9 }),
        async (lines, quantity) => {
          const values = lines.map(([, parts]) =>
            parts.map(([lead, description, trail]) => `${lead}${elementText(description)}${trail}`).join(','),
          );
          const ifMatchLines = lines.map(([name], index) => [name, values[index] as string] as const);
          const expected = contractIfMatch(values);
          const response = observe(
            await sendJson(
              hostile.client,
              hostile.api.authorization,
              'PATCH',
              '/inventory/7',
              `{"quantity":${quantity}}`,
              ifMatchLines,
            ),
          );
          const context = `${JSON.stringify(values)} -> ${response.status} ${response.text}`;
          if (expected === 'invalid') {
            expectContractError(response, 400);
          } else if (
            expected === 'none' ||
            expected === 'any' ||
            expected.strongTags.includes(currentTag())
          ) {
            expect(response.status, context).toBe(200);
            hostile.model.expectUpdateAnswer(response, '7', { quantity });
            expect(response.headers.etag, context).toBe(currentTag());
          } else {
            expectContractError(response, 412, 'If-Match does not match the current entry of petId 7');
          }
          await hostile.model.expectTable(hostile.api, context);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('If-Match examples at the edges: length 0 and 256, invisible characters', () => {
  const zeroWidthSpace = Buffer.from('\u200b', 'utf8').toString('latin1');
  test.each([
    ['an empty value (length 0)', () => '', 400],
    ['a strong tag of 256 characters', () => `"${'1'.repeat(254)}"`, 412],
    ['256 characters that are not a tag', () => '1'.repeat(256), 400],
    ['the current tag then a zero-width space', () => currentTag() + zeroWidthSpace, 400],
    ['a zero-width space then the current tag', () => zeroWidthSpace + currentTag(), 400],
    [
      'the current tag with a zero-width space inside',
      () => `${currentTag().slice(0, -1)}${zeroWidthSpace}"`,
      412,
    ],
    ['the current tag between tabs (whitespace HTTP strips)', () => `\t${currentTag()}\t`, 200],
  ])('answers %s with %i and changes the entry only on 200', async (_case, value, status) => {
    const ifMatch = value();
    // The example's status is the oracle's too.
    const verdict = contractIfMatch([ifMatch]);
    const oracleStatus =
      verdict === 'invalid'
        ? 400
        : typeof verdict === 'object' && !verdict.strongTags.includes(currentTag())
          ? 412
          : 200;
    expect(oracleStatus).toBe(status);
    const response = observe(
      await sendJson(hostile.client, hostile.api.authorization, 'PATCH', '/inventory/7', '{"quantity":5}', [
        ['If-Match', ifMatch],
      ]),
    );
    if (status === 200) {
      expect(response.status, response.text).toBe(200);
      hostile.model.expectUpdateAnswer(response, '7', { quantity: 5 });
      expect(response.headers.etag).toBe(currentTag());
    } else if (status === 412) {
      expectContractError(response, 412, 'If-Match does not match the current entry of petId 7');
    } else {
      expectContractError(
        response,
        400,
        'If-Match must be * or a comma-separated list of entity tags such as "12-available"',
      );
    }
    await hostile.model.expectTable(hostile.api);
  });
});
