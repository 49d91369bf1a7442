/**
 * listInventory's `petIds` over HTTP (docs/contract.md "Inventory semantics": entries by id, Square's
 * BatchRetrieveInventoryCounts): the entries of up to 100 ids sorted by petId, absent ids missing, every refusal
 * with its exact body.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite();

beforeEach(async () => {
  await api.inventory.putMany([
    { petId: '-9223372036854775808', quantity: 1, status: 'pending' },
    { petId: '7', quantity: 3, status: 'available' },
    { petId: '9007199254740993', quantity: 5, status: 'sold' },
    { petId: '9007199254740992', quantity: 6, status: 'sold' },
    { petId: '9223372036854775807', quantity: 2, status: 'pending' },
  ]);
});

/** `GET /inventory?<query>` with the suite's key. */
const get = (query: string) =>
  api.request('GET', `/inventory?${query}`, { headers: { Authorization: api.authorization } });

describe('petIds=<id>,<id>,...', () => {
  test('answers the entries of the ids that exist, sorted by petId (int64-exact beyond 2^53), absent ids missing', async () => {
    const response = await get(
      'petIds=9223372036854775807,404,9007199254740993,-9223372036854775808,9007199254740992',
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe(
      '[{"petId":-9223372036854775808,"quantity":1,"status":"pending"},' +
        '{"petId":9007199254740992,"quantity":6,"status":"sold"},' +
        '{"petId":9007199254740993,"quantity":5,"status":"sold"},' +
        '{"petId":9223372036854775807,"quantity":2,"status":"pending"}]',
    );
  });

  test('answers [] when no id has an entry, and takes 100 ids', async () => {
    expect((await get('petIds=404')).text).toBe('[]');
    const hundred = Array.from({ length: 99 }, (_, index) => String(1000 + index));
    const response = await get(`petIds=${[...hundred, '7'].join(',')}`);
    expect(response.status).toBe(200);
    expect(response.text).toBe('[{"petId":7,"quantity":3,"status":"available"}]');
  });

  const int64Rule =
    'each id of petIds must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal and separated by commas';
  test.each([
    ['petIds=7,7', 'petIds names 7 twice'],
    ['petIds=7,-0,0', 'petIds names 0 twice'],
    [
      `petIds=${Array.from({ length: 101 }, (_, index) => index).join(',')}`,
      'petIds must name 1 to 100 ids; it names 101',
    ],
    ['petIds=', int64Rule],
    ['petIds=7,', int64Rule],
    ['petIds=07', int64Rule],
    ['petIds=abc', int64Rule],
    ['petIds=9223372036854775808', int64Rule],
    ['petIds=7%20,8', int64Rule],
    ['petIds=7&limit=5', 'petIds cannot be combined with other query parameters'],
    ['status=sold&petIds=7', 'petIds cannot be combined with other query parameters'],
    ['petIds=7&lowStock=true', 'petIds cannot be combined with other query parameters'],
    ['petIds=7&petIds=8', 'query parameter petIds must be given at most once'],
  ])('%s is 400 invalid_request', async (query, message) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe(JSON.stringify({ code: 'invalid_request', message, status: 400 }));
  });
});
