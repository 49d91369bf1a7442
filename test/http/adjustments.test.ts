/**
 * Adjustments over HTTP (docs/contract.md "Inventory semantics": adjustments; "Errors"): `adjustBy` on
 * updateInventory adds to the stock in one conditional write, refuses a result out of 0..2147483647 with 409
 * and changes nothing, and moves the stock exactly once per request under concurrency and keyed repeats.
 */
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { manyConnectionsTimeoutMs } from '#test/support/connection-retries.ts';
import { expectError, expectRefused } from '#test/support/http-assertions.ts';
import { rawClient, sendJson } from '#test/support/raw-http.ts';
import { storedEntry, testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite({ events: true });

beforeEach(async () => {
  await api.inventory.putMany([
    { petId: '7', quantity: 3, status: 'available' },
    { petId: '8', quantity: 2147483640, status: 'pending' },
  ]);
});

function patch(petId: string, body: string, headers: Record<string, string> = {}) {
  return api.request('PATCH', `/inventory/${petId}`, {
    headers: { Authorization: api.authorization, 'Content-Type': 'application/json', ...headers },
    body,
  });
}

/** How long the change records of a write may take here (the contract's 5 s, with room for load). */
const recordsWithinMs = 20_000;

/**
 * The change records of `petId`, oldest first, as `<reason> <quantity.from>><quantity.to>`, once a marker change
 * made here (quantity 999, reason `return`) is recorded: records follow commit order per pet, so every record of
 * an earlier write is there by then; the marker is left out.
 */
async function changesOf(petId: string): Promise<string[]> {
  expect((await patch(petId, '{"quantity": 999, "reason": "return"}')).status).toBe(200);
  const records = await vi.waitFor(
    async () => {
      const response = await api.request('GET', `/inventory/${petId}/history?limit=1000`, {
        headers: { Authorization: api.authorization },
      });
      expect(response.status).toBe(200);
      const records = (
        JSON.parse(response.text) as { reason: string; quantity: { from: number | null; to: number } }[]
      )
        .map(({ reason, quantity }) => `${reason} ${quantity.from}>${quantity.to}`)
        .reverse();
      expect(records.at(-1), `records of ${petId}: ${JSON.stringify(records)}`).toBe('return 0>999');
      return records;
    },
    { timeout: recordsWithinMs, interval: 100 },
  );
  return records.slice(0, -1);
}

/** The stored entries of the fixture's pets, 7 and 8 (the rush's pet 30 stays in the table). */
const fixtureEntries = async () =>
  (await api.tableItems()).filter(({ petId }) => petId === '7' || petId === '8');

/** The stored entry 8 as the fixture left it. */
const untouched8 = storedEntry('8', 2147483640, 'pending', { reason: 'import' });

describe('adjustBy (docs/contract.md "Inventory semantics": adjustments)', () => {
  test('a sale takes one, an arrival adds five; each answers the entry and records its reason', async () => {
    const sale = await patch('7', '{"adjustBy": -1, "reason": "sale"}');
    expect([sale.status, sale.text, sale.headers.get('etag')]).toEqual([
      200,
      '{"petId":7,"quantity":2,"status":"available"}',
      '"2-available"',
    ]);
    expect(await fixtureEntries()).toEqual([
      storedEntry('7', 2, 'available', { reason: 'sale', keyId: api.keyId }),
      untouched8,
    ]);
    const arrival = await patch('7', '{"adjustBy": 5, "reason": "arrival", "status": "pending"}');
    expect([arrival.status, arrival.text]).toEqual([200, '{"petId":7,"quantity":7,"status":"pending"}']);
    expect(await fixtureEntries()).toEqual([
      storedEntry('7', 7, 'pending', { reason: 'arrival', keyId: api.keyId }),
      untouched8,
    ]);
  });

  test('below 0 is 409 insufficient_stock, past 2147483647 is 409 quantity_out_of_range; nothing changes', async () => {
    await expectRefused(
      api,
      () => patch('7', '{"adjustBy": -4, "reason": "sale"}'),
      409,
      'insufficient_stock',
      'petId 7 has 3 in stock; adjustBy -4 would leave -1',
    );
    await expectRefused(
      api,
      () => patch('8', '{"adjustBy": 8}'),
      409,
      'quantity_out_of_range',
      'petId 8 has 2147483640 in stock; adjustBy 8 would make 2147483648, more than 2147483647',
    );
    const toTheTop = await patch('8', '{"adjustBy": 7}');
    expect([toTheTop.status, toTheTop.text]).toEqual([
      200,
      '{"petId":8,"quantity":2147483647,"status":"pending"}',
    ]);
    const toZero = await patch('7', '{"adjustBy": -3}');
    expect([toZero.status, toZero.text]).toEqual([200, '{"petId":7,"quantity":0,"status":"available"}']);
  });

  test('with If-Match: 200 when it matches, 412 when not (before the range), 404 without an entry', async () => {
    const matched = await patch('7', '{"adjustBy": -1}', { 'If-Match': '"3-available"' });
    expect([matched.status, matched.text]).toEqual([200, '{"petId":7,"quantity":2,"status":"available"}']);
    await expectRefused(
      api,
      () => patch('7', '{"adjustBy": -9}', { 'If-Match': '"3-available"' }),
      412,
      'precondition_failed',
      'If-Match does not match the current entry of petId 7',
    );
    await expectRefused(
      api,
      () => patch('7', '{"adjustBy": -9}', { 'If-Match': '"2-available"' }),
      409,
      'insufficient_stock',
      'petId 7 has 2 in stock; adjustBy -9 would leave -7',
    );
    await expectRefused(
      api,
      () => patch('9', '{"adjustBy": 1}'),
      404,
      'not_found',
      'no inventory entry for petId 9',
    );
  });

  test('adjustBy with quantity is 400', async () => {
    await expectRefused(
      api,
      () => patch('7', '{"adjustBy": 1, "quantity": 4}'),
      400,
      'invalid_request',
      'request body may contain quantity or adjustBy, not both: set the stock or adjust it',
    );
  });

  test(
    '50 concurrent sales of one on a stock of 30: exactly 30 times 200, 20 times 409, 0 left, one record per sale',
    async () => {
      await api.inventory.putMany([{ petId: '30', quantity: 30, status: 'available' }]);
      const client = rawClient(api.baseUrl, { maxSockets: 50, retryConnectionErrors: true });
      const responses = await Promise.all(
        Array.from({ length: 50 }, () =>
          sendJson(client, api.authorization, 'PATCH', '/inventory/30', '{"adjustBy": -1, "reason": "sale"}'),
        ),
      ).finally(() => client.close());
      const sold = responses.filter((response) => response.status === 200);
      const refused = responses.filter((response) => response.status !== 200);
      expect(sold).toHaveLength(30);
      expect(refused).toHaveLength(20);
      for (const response of refused) {
        expectError(
          response,
          409,
          'insufficient_stock',
          'petId 30 has 0 in stock; adjustBy -1 would leave -1',
        );
      }
      expect(await api.tableItems()).toContainEqual(
        storedEntry('30', 0, 'available', { reason: 'sale', keyId: api.keyId }),
      );
      const sales = Array.from({ length: 30 }, (_, index) => `sale ${30 - index}>${29 - index}`);
      expect(await changesOf('30')).toStrictEqual(['import null>30', ...sales]);
    },
    manyConnectionsTimeoutMs,
  );

  test(
    '40 concurrent returns add exactly 40',
    async () => {
      const client = rawClient(api.baseUrl, { maxSockets: 40, retryConnectionErrors: true });
      const responses = await Promise.all(
        Array.from({ length: 40 }, () =>
          sendJson(client, api.authorization, 'PATCH', '/inventory/7', '{"adjustBy": 1, "reason": "return"}'),
        ),
      ).finally(() => client.close());
      expect(responses.map((response) => response.status)).toEqual(Array(40).fill(200));
      expect(await fixtureEntries()).toEqual([
        storedEntry('7', 43, 'available', { reason: 'return', keyId: api.keyId }),
        untouched8,
      ]);
    },
    manyConnectionsTimeoutMs,
  );

  test('a keyed adjustment repeated answers the same, marked Idempotent-Replayed, and applies once', async () => {
    const headers = { 'Idempotency-Key': 'sale-7' };
    const first = await patch('7', '{"adjustBy": -2, "reason": "sale"}', headers);
    expect([first.status, first.text, first.headers.get('idempotent-replayed')]).toEqual([
      200,
      '{"petId":7,"quantity":1,"status":"available"}',
      null,
    ]);
    const repeat = await patch('7', '{"adjustBy": -2, "reason": "sale"}', headers);
    expect([repeat.status, repeat.text, repeat.headers.get('idempotent-replayed')]).toEqual([
      200,
      first.text,
      'true',
    ]);
    expect(await fixtureEntries()).toEqual([
      storedEntry('7', 1, 'available', { reason: 'sale', keyId: api.keyId }),
      untouched8,
    ]);
  });
});
