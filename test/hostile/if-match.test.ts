/**
 * Hostile `If-Match` headers on updateInventory (docs/contract.md "Inventory semantics"; RFC 9110 §13.1.1),
 * property-based: 400 generated header sets per run, each on an otherwise valid update of an existing pet,
 * with 0 to 3 `If-Match` field lines in any name case: the entry's current tag, stale tags, weak tags, `*`,
 * lists with empty elements and commas inside tags, tags the service never issues, random printable text.
 *
 * Oracle (test/support/contract-oracle.ts `contractIfMatch`, independent of lib/): no header or `*`: 200;
 * a list holding the current strong tag: 200; another well-formed list: 412 `precondition_failed`; anything
 * else: 400 `invalid_request`. Never a 5xx; the table changes only by accepted updates (model check after
 * every request), and each 200 carries the new ETag.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contractIfMatch, expectContractError, observe } from '#test/support/contract-oracle.ts';
import { type InventoryModel, startModelledApi } from '#test/support/inventory-model.ts';
import type { TestApi } from '#test/support/local-api.ts';
import type { RawClient } from '#test/support/raw-http.ts';

let api: TestApi;
let client: RawClient;
let model: InventoryModel;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ api, client, model, close } = await startModelledApi([
    { petId: '7', quantity: 1, status: 'available' },
  ]));
});
afterAll(() => close?.());

/** The strong tag the contract gives the entry's current state. */
function currentTag(): string {
  const item = model.get('7');
  return `"${item?.quantity}-${item?.status}"`;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 30,
});
const ows = fc.constantFrom('', ' ', '\t', '  ');
/** One list element, as a description resolved against the current state when sent. */
const element = fc.oneof(
  { weight: 4, arbitrary: fc.constant('current') },
  { weight: 2, arbitrary: fc.constant('weak-current') },
  fc
    .tuple(fc.nat({ max: 5 }), fc.constantFrom('available', 'pending', 'sold'))
    .map(([q, s]) => `"${q}-${s}"`),
  fc.constantFrom('""', '"xyzzy"', '"a,b"', '"1-available', '1-available', 'W/1', '*', '"01-available"'),
  fc.constantFrom('"2147483648-sold"', '"3-Available"', 'w/"1-available"', ''),
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
          const headers: [string, string][] = [
            ['Authorization', api.authorization],
            ['Content-Type', 'application/json'],
            ...lines.map(([name], index) => [name, values[index] as string] as [string, string]),
          ];
          const expected = contractIfMatch(values);
          const response = observe(
            await client.send({
              method: 'PATCH',
              path: '/inventory/7',
              headers,
              body: `{"quantity":${quantity}}`,
            }),
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
            model.expectUpdateAnswer(response, '7', quantity);
            expect(response.headers.etag, context).toBe(currentTag());
          } else {
            expectContractError(response, 412, 'If-Match does not match the current entry of petId 7');
          }
          await model.expectTable(api, context);
        },
      ),
      { numRuns: 400 },
    );
  });
});
