/**
 * batchUpdateInventory over HTTP (docs/contract.md "Inventory semantics", the batch) on the local API serving
 * the synthesized stack with its event path: a shipment of 100 changes answers the exact body (each entry with
 * its etag, in the request's order), leaves the table exactly so and yields 100 change records, one per entry,
 * each with its reason and the key's id (a change to the values an entry has yields none); the
 * `Idempotency-Key` answers a repeat with the first answer and applies nothing more, and is 422 for other
 * changes; GET and PATCH on `/v1/inventory/batch` are the `{petId}` operations with petId `batch`
 * (local-aws/behaviour.md R5); a key without `inventory:write` is 403. Every response is checked against
 * openapi.yaml.
 */
import { describe, expect, test, vi } from 'vitest';
import { badPetIdMessage, declaredRequest, expectError } from '#test/support/http-assertions.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { changeTimeWithin, timed } from '#test/support/raw-tables.ts';
import { storedEntry, testApiSuite, unthrottled } from '#test/support/test-api.ts';

const api = testApiSuite({ events: true });

/** Pets 3001-3100, each with quantity 1 and `available` when a test starts from them. */
const petIds = Array.from({ length: 100 }, (_, index) => String(3001 + index));
const statuses: readonly string[] = ['available', 'pending', 'sold'];

const post = (body: unknown, headers: Record<string, string> = {}) =>
  declaredRequest(api, 'POST', '/inventory/batch', { body: JSON.stringify(body), headers });

/** The body of `GET /inventory/{petId}/history?limit=1000` once it holds `count` records (30 s at most). */
async function historyOf(petId: string, count: number): Promise<unknown[]> {
  const records = await vi.waitFor(
    async () => {
      const response = await declaredRequest(api, 'GET', `/inventory/${petId}/history?limit=1000`);
      const records = JSON.parse(response.text) as unknown[];
      expect(records.length, `records of ${petId}`).toBeGreaterThanOrEqual(count);
      return records;
    },
    { timeout: 30_000, interval: 50 },
  );
  expect(records, `records of ${petId}`).toHaveLength(count);
  return records;
}

describe('a shipment of 100 changes', () => {
  test('answers every entry with its etag, stores each, and yields one change record per entry', async () => {
    await api.inventory.putMany(petIds.map((petId) => ({ petId, quantity: 1, status: 'available' })));
    for (const petId of petIds) await historyOf(petId, 1);
    const reasons: readonly string[] = ['arrival', 'return', 'adjustment'];
    const changes = petIds.map((petId, index) => ({
      petId: Number(petId),
      quantity: 10 + index,
      ...(index % 4 === 0 ? { status: statuses[index % 3] } : {}),
      ...(index % 5 === 0 ? {} : { reason: reasons[index % 3] }),
      ...(index % 7 === 0 ? { ifMatch: '"1-available"' } : {}),
    }));
    const expected = petIds.map((petId, index) => ({
      petId,
      quantity: 10 + index,
      status: index % 4 === 0 ? (statuses[index % 3] as string) : 'available',
      reason: index % 5 === 0 ? 'adjustment' : (reasons[index % 3] as string),
    }));

    const { result: response, window } = await timed(() =>
      post({ changes }, { 'Idempotency-Key': 'shipment-100' }),
    );

    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe(
      `{"items":[${expected
        .map(
          ({ petId, quantity, status }) =>
            `{"petId":${petId},"quantity":${quantity},"status":"${status}","etag":"\\"${quantity}-${status}\\""}`,
        )
        .join(',')}]}`,
    );
    // A keyed batch of 100 changes has no room for its key's claim: each entry records the batch's
    // name-based token instead (docs/architecture.md "Writes exactly once").
    expect(await api.tableItems()).toEqual(
      expected.map(({ petId, quantity, status, reason }) => ({
        ...storedEntry(petId, quantity, status, {
          reason,
          keyId: api.keyId,
          changedAt: changeTimeWithin(window),
        }),
        requestToken: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        ),
      })),
    );
    for (const { petId, quantity, status, reason } of expected) {
      const [newest] = await historyOf(petId, 2);
      expect(newest).toEqual({
        sequence: 2,
        petId: Number(petId),
        occurredAt: changeTimeWithin(window),
        reason,
        quantity: { from: 1, to: quantity },
        status: { from: 'available', to: status },
        keyId: api.keyId,
      });
    }
  });

  test('a change to the values an entry has is applied and recorded on the entry, with no change record', async () => {
    await api.inventory.putMany([
      { petId: '3201', quantity: 4, status: 'pending' },
      { petId: '3202', quantity: 4, status: 'pending' },
    ]);
    await historyOf('3201', 1);
    await historyOf('3202', 1);
    const response = await post({
      changes: [
        { petId: 3201, quantity: 4, reason: 'return' },
        { petId: 3202, quantity: 5 },
      ],
    });
    expect(response.text).toBe(
      '{"items":[{"petId":3201,"quantity":4,"status":"pending","etag":"\\"4-pending\\""},' +
        '{"petId":3202,"quantity":5,"status":"pending","etag":"\\"5-pending\\""}]}',
    );
    await historyOf('3202', 2);
    // 3201 comes first in the transaction, so in the stream: had it a record, it would be there before 3202's.
    await historyOf('3201', 1);
  });
});

describe('adjustments (docs/contract.md "Inventory semantics": adjustments)', () => {
  test('adds each adjustBy to the stock as read, records from and to, and a 409 names its index with nothing changed', async () => {
    await api.inventory.putMany([
      { petId: '3501', quantity: 5, status: 'available' },
      { petId: '3502', quantity: 2147483640, status: 'pending' },
    ]);
    await historyOf('3501', 1);
    const { result: response, window } = await timed(() =>
      post({
        changes: [
          { petId: 3501, adjustBy: -2, reason: 'sale' },
          { petId: 3502, adjustBy: 7, status: 'available' },
        ],
      }),
    );
    expect(response.text).toBe(
      '{"items":[{"petId":3501,"quantity":3,"status":"available","etag":"\\"3-available\\""},' +
        '{"petId":3502,"quantity":2147483647,"status":"available","etag":"\\"2147483647-available\\""}]}',
    );
    const [newest] = await historyOf('3501', 2);
    expect(newest).toEqual({
      sequence: 2,
      petId: 3501,
      occurredAt: changeTimeWithin(window),
      reason: 'sale',
      quantity: { from: 5, to: 3 },
      status: { from: 'available', to: 'available' },
      keyId: api.keyId,
    });
    const before = await api.tableItems();
    const short = await post({
      changes: [
        { petId: 3502, adjustBy: -1 },
        { petId: 3501, adjustBy: -4, reason: 'sale' },
      ],
    });
    expectError(
      short,
      409,
      'insufficient_stock',
      'changes[1]: petId 3501 has 3 in stock; adjustBy -4 would leave -1',
    );
    const over = await post({ changes: [{ petId: 3502, adjustBy: 1 }] });
    expectError(
      over,
      409,
      'quantity_out_of_range',
      'changes[0]: petId 3502 has 2147483647 in stock; adjustBy 1 would make 2147483648, more than 2147483647',
    );
    expect(await api.tableItems()).toEqual(before);
  });
});

describe('Idempotency-Key', () => {
  test('a repeat answers the first answer, marked Idempotent-Replayed, and applies nothing more; other changes under the key are 422', async () => {
    await api.inventory.putMany([{ petId: '3301', quantity: 2, status: 'available' }]);
    const headers = { 'Idempotency-Key': 'shipment-3301' };
    const changes = [{ petId: 3301, quantity: 9, ifMatch: '"2-available"', reason: 'arrival' }];
    const first = await post({ changes }, headers);
    expect(first.text).toBe(
      '{"items":[{"petId":3301,"quantity":9,"status":"available","etag":"\\"9-available\\""}]}',
    );
    const patched = await api.patch('3301', '{"quantity": 1}');
    expect(patched.status).toBe(200);

    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const repeat = await post({ changes }, headers);
    expect([repeat.status, repeat.text]).toEqual([first.status, first.text]);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    const other = await post({ changes: [{ petId: 3301, quantity: 8 }] }, headers);
    expectError(
      other,
      422,
      'idempotency_key_reused',
      'this Idempotency-Key was used with another batch in the last 24 hours',
    );
    expect((await api.tableItems()).find((item) => item.petId === '3301')).toEqual(
      storedEntry('3301', 1, 'available', { reason: 'adjustment', keyId: api.keyId }),
    );
    await historyOf('3301', 3);
  });

  test('a refusal is remembered: the repeat answers it again after the entry changed, marked Idempotent-Replayed', async () => {
    await api.inventory.putMany([{ petId: '3302', quantity: 2, status: 'available' }]);
    const headers = { 'Idempotency-Key': 'shipment-3302' };
    const changes = [{ petId: 3302, quantity: 9, ifMatch: '"3-available"' }];
    const message = 'changes[0]: ifMatch does not match the current entry of petId 3302';
    const first = await post({ changes }, headers);
    expectError(first, 412, 'precondition_failed', message);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await api.patch('3302', '{"quantity": 3}')).status).toBe(200);
    const repeat = await post({ changes }, headers);
    expectError(repeat, 412, 'precondition_failed', message);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.tableItems()).find((item) => item.petId === '3302')?.quantity).toBe('3');
  });
});

describe('the resource beside {petId} (local-aws/behaviour.md R5)', () => {
  test('GET and PATCH /v1/inventory/batch are getInventoryItem and updateInventory with petId batch: 400', async () => {
    // openapi.yaml matches the concrete path first (OpenAPI 3.1 "Paths Object") and declares neither method
    // on it: API Gateway routes them to the {petId} resource all the same.
    const headers = { Authorization: api.authorization, 'Content-Type': 'application/json' };
    const read = await api.request('GET', '/inventory/batch', { headers });
    expectError(read, 400, 'invalid_request', badPetIdMessage);
    const patch = await api.request('PATCH', '/inventory/batch', { headers, body: '{"quantity": 1}' });
    expectError(patch, 400, 'invalid_request', badPetIdMessage);
  });
});

describe('scope', () => {
  test('a key without inventory:write is 403 and changes nothing', async () => {
    const key = await storeNewKey(api.keys, 'reader', unthrottled, [
      'inventory:read',
      'orders:read',
      'orders:write',
    ]);
    const before = await api.tableItems();
    const response = await api.request('POST', '/inventory/batch', {
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ changes: [{ petId: 3001, quantity: 0 }] }),
    });
    expectError(
      response,
      403,
      'forbidden',
      'this API key lacks the scope inventory:write that batchUpdateInventory requires',
    );
    expect(await api.tableItems()).toEqual(before);
  });
});
