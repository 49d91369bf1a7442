/**
 * Hostile petId path segments (docs/contract.md "Identifiers"), property-based: 1,000 generated segments per run, each
 * percent-encoded (every byte that is not an ASCII letter, digit, `-`, `_` or `~`, and at random some of
 * those too, in upper or lower case hex) and sent as `PATCH /v1/inventory/{segment}` with a valid key and a
 * valid body.
 *
 * Oracle (test/support/contract-oracle.ts, independent of lib/): the decoded segment is a petId when it is
 * canonical decimal `-?(0|[1-9][0-9]*)` within int64; then the answer is 200 with the entry (existing pet)
 * or 404 `not_found`, else 400 `invalid_request`. Never a 5xx, and the table changes only by the accepted
 * updates.
 *
 * API Gateway passes the segment percent-encoded and the function decodes it once (docs/contract.md "Requests
 * as API Gateway delivers them"): a segment that is not valid percent-encoded UTF-8 (`%ZZ`, `%FF`) is 400
 * `invalid_request`, and a doubly encoded one (`%2537`) is the text `%37`, not a petId (tested with examples).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { contractPetId, expectContractError, observe } from '#test/support/contract-oracle.ts';
import { idSegment } from '#test/support/hostile-ids.ts';
import { int64Inventory } from '#test/support/inventory-fixtures.ts';
import { modelledSuite } from '#test/support/inventory-model.ts';
import { sendJsonPatch } from '#test/support/raw-http.ts';

const existing = int64Inventory;

const hostile = modelledSuite(existing);

/** Sends a valid update of `quantity` to the raw path segment `segment` and checks the oracle's answer. */
async function checkSegment(segment: string, quantity: number): Promise<number> {
  const response = await sendJsonPatch(
    hostile.client,
    hostile.api.authorization,
    `/inventory/${segment}`,
    JSON.stringify({ quantity }),
  );
  const observed = observe(response);
  const petId = contractPetId(decodeURIComponent(segment));
  if (segment === '') {
    // `/v1/inventory/` is `/v1/inventory` (one trailing slash ignored), which has no PATCH: an unknown route
    // (docs/contract.md "Requests as API Gateway delivers them").
    expect(expectContractError(observed, 404).code).toBe('not_found');
  } else if (petId === undefined) {
    expect(expectContractError(observed, 400).message).toContain('petId');
  } else {
    hostile.model.expectUpdateAnswer(observed, petId, { quantity });
  }
  await hostile.model.expectTable(hostile.api, `after PATCH /inventory/${segment}`);
  return response.status;
}

const segment = idSegment(existing.map((item) => item.petId));

describe('petId path segments, property-based against the contract oracle', () => {
  test('answers a petId segment with 200 or 404 only when it decodes to a canonical int64, else 400 invalid_request', async () => {
    await fc.assert(
      fc.asyncProperty(segment, fc.integer({ min: 0, max: 2147483647 }), async (raw, quantity) => {
        await checkSegment(raw, quantity);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('petId examples at the edges of the rule', () => {
  test.each([
    ['9223372036854775807', 200],
    ['-9223372036854775808', 200],
    ['9223372036854775808', 400],
    ['-9223372036854775809', 400],
    ['-0', 200],
    ['%37', 200],
    ['%2D1', 200],
    ['07', 400],
    ['%2B7', 400],
    ['%207', 400],
    ['7%2F', 400],
    ['7.0', 400],
    ['%EF%BC%97', 400],
    ['9223372036854775806', 404],
  ])('answers PATCH /v1/inventory/%s with %i', async (raw, status) => {
    expect(await checkSegment(raw, 77)).toBe(status);
  });

  test.each(['%ZZ', '%FF', '7%', '%E2%82'])(
    'answers a segment that is not percent-encoded UTF-8 (%s) with 400 invalid_request and changes nothing',
    async (raw) => {
      const response = await sendJsonPatch(
        hostile.client,
        hostile.api.authorization,
        `/inventory/${raw}`,
        '{"quantity":79}',
      );
      expectContractError(observe(response), 400, 'path parameter petId is not valid percent-encoded UTF-8');
      await hostile.model.expectTable(hostile.api);
    },
  );

  test.each([
    ['%2537', 400],
    ['%37', 200],
  ])('decodes a segment once: PATCH /v1/inventory/%s is %i', async (raw, status) => {
    expect(await checkSegment(raw, 78)).toBe(status);
  });
});
