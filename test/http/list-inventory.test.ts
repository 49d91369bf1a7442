/**
 * listInventory over HTTP (docs/service-spec.md §4.1; docs/contract.md "Semantics"): every entry, across DynamoDB's 1 MB scan
 * pages, sorted by petId in numeric order, each with exactly petId, quantity and status.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestApi, type TestApi } from '#test/support/local-api.ts';
import { inventoryRecord } from '#test/support/test-dynamodb.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

test('answers an empty table with 200 and []', async () => {
  const response = await api.list();
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.text).toBe('[]');
});

test('sorts by petId in numeric order, negative and beyond 2^53 included, with exact digits', async () => {
  await api.inventory.putMany([
    { petId: '10', quantity: 1, status: 'available' },
    { petId: '9223372036854775807', quantity: 2, status: 'sold' },
    { petId: '-3', quantity: 3, status: 'pending' },
    { petId: '9', quantity: 4, status: 'available' },
    { petId: '9007199254740993', quantity: 5, status: 'pending' },
    { petId: '-9223372036854775808', quantity: 6, status: 'sold' },
    { petId: '0', quantity: 7, status: 'available' },
  ]);
  const response = await api.list();
  expect(response.status).toBe(200);
  expect(response.text).toBe(
    '[{"petId":-9223372036854775808,"quantity":6,"status":"sold"},' +
      '{"petId":-3,"quantity":3,"status":"pending"},' +
      '{"petId":0,"quantity":7,"status":"available"},' +
      '{"petId":9,"quantity":4,"status":"available"},' +
      '{"petId":10,"quantity":1,"status":"available"},' +
      '{"petId":9007199254740993,"quantity":5,"status":"pending"},' +
      '{"petId":9223372036854775807,"quantity":2,"status":"sold"}]',
  );
});

test('returns every entry of a table larger than one 1 MB scan page, with exactly the three members', async () => {
  // Items carrying a 100 KB attribute the API does not know: 15 of them make 1.5 MB, two scan pages.
  const padding = 'x'.repeat(100 * 1024);
  await api.putRawItems(
    Array.from({ length: 15 }, (_, i) => ({
      ...inventoryRecord(String(1000 + i), 1, 'sold'),
      note: { S: padding },
    })),
  );
  const items = JSON.parse((await api.list()).text) as Record<string, unknown>[];
  const large = items.filter((item) => (item.petId as number) >= 1000 && (item.petId as number) < 2000);
  expect(large).toEqual(
    Array.from({ length: 15 }, (_, i) => ({ petId: 1000 + i, quantity: 1, status: 'sold' })),
  );
});
