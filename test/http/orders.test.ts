/**
 * Store orders over HTTP (docs/contract.md "Store orders"): placeOrder reserves stock in one transaction
 * (201 with Location, the stock decremented, an id from 1 to 2^53 - 1; 404 without an entry; 409
 * `pet_unavailable` for a `pending` or `sold` entry, whatever its stock; 409 `insufficient_stock`; each refusal
 * changing nothing), Idempotency-Key replays, scoped by the API key's id (two keys of one name place two orders; a rotated
 * key shares its predecessor's), 422 for a reused key and 400 for a malformed one, listOrders newest first in
 * pages linked by `Link` rel="next" (orders placed before ids fit in 2^53 - 1 after every newer one),
 * getOrderById and updateOrder of such an order. Every response is checked against openapi.yaml.
 */
import { describe, expect, test } from 'vitest';
import { rotateKey } from '#lib/admin/keys.ts';
import { scopes } from '#lib/api.ts';
import { apiKeyDigest, keyIdOf } from '#lib/auth/api-key.ts';
import { isContractAssignedId } from '#test/support/contract-oracle.ts';
import { declaredRequest, expectError, expectRefused } from '#test/support/http-assertions.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { listAllOrders, stockOf } from '#test/support/order-lists.ts';
import { orderRecord } from '#test/support/raw-tables.ts';
import { testApiSuite, unthrottled } from '#test/support/test-api.ts';

const api = testApiSuite();

const placeOrder = (body: string, headers: Record<string, string> = {}) =>
  declaredRequest(api, 'POST', '/store/orders', { body, headers });
const get = (path: string) => declaredRequest(api, 'GET', path);

/** The largest id the service assigns now (docs/contract.md "Identifiers"). */
const maxAssignedId = 9007199254740991n;

/**
 * `ids` in the newest-first list's order (docs/implementation.md "Store orders"): the ids up to 2^53 - 1
 * descending, then the larger ones assigned before them, descending.
 */
function newestFirst(ids: readonly bigint[]): bigint[] {
  const early = (id: bigint) => id > maxAssignedId;
  return [...ids].sort((a, b) => Number(early(a)) - Number(early(b)) || (a > b ? -1 : a < b ? 1 : 0));
}

describe('placeOrder', () => {
  test('reserves the stock and answers 201 with the order and its Location', async () => {
    await api.inventory.putMany([{ petId: '9223372036854775807', quantity: 5, status: 'available' }]);
    const response = await placeOrder(
      '{"petId": 9223372036854775807, "quantity": 2, "shipDate": "2026-12-01T10:00:00Z"}',
    );
    expect(response.status).toBe(201);
    const id = /^\{"id":([1-9][0-9]*),/.exec(response.text)?.[1] as string;
    expect(response.text).toBe(
      `{"id":${id},"petId":9223372036854775807,"quantity":2,"shipDate":"2026-12-01T10:00:00Z","status":"placed","complete":false}`,
    );
    expect(isContractAssignedId(id), id).toBe(true);
    expect(response.headers.get('location')).toBe(`/v1/store/orders/${id}`);
    expect(stockOf(await api.tableItems(), '9223372036854775807')).toBe('3');
    const read = await get(`/store/orders/${id}`);
    expect(read.status).toBe(200);
    expect(read.text).toBe(response.text);
  });

  test("takes a shipDate on 29 February of year 0000 (a leap year in RFC 3339's calendar) and stores it as sent", async () => {
    await api.inventory.putMany([{ petId: '13', quantity: 1, status: 'available' }]);
    const response = await placeOrder('{"petId": 13, "quantity": 1, "shipDate": "0000-02-29T00:00:00Z"}');
    expect(response.status).toBe(201);
    const id = /^\{"id":([1-9][0-9]*),/.exec(response.text)?.[1] as string;
    expect(response.text).toBe(
      `{"id":${id},"petId":13,"quantity":1,"shipDate":"0000-02-29T00:00:00Z","status":"placed","complete":false}`,
    );
    expect(stockOf(await api.tableItems(), '13')).toBe('0');
  });

  test.each([
    [
      '409 insufficient_stock when the stock is short',
      '11',
      2,
      409,
      'insufficient_stock',
      'fewer than 2 of petId 11 in stock',
    ],
    ['404 not_found for a pet with no entry', '12', 1, 404, 'not_found', 'no inventory entry for petId 12'],
    [
      '409 pet_unavailable for a pending entry with stock enough',
      '14',
      1,
      409,
      'pet_unavailable',
      'petId 14 is not available: its status is pending',
    ],
    [
      '409 pet_unavailable, not insufficient_stock, for a sold entry whose stock is also short',
      '15',
      2,
      409,
      'pet_unavailable',
      'petId 15 is not available: its status is sold',
    ],
  ])(
    'answers %s, and changes nothing (no order, no entry created)',
    async (_name, petId, quantity, status, code, message) => {
      await api.inventory.putMany([
        { petId: '11', quantity: 1, status: 'available' },
        { petId: '14', quantity: 5, status: 'pending' },
        { petId: '15', quantity: 1, status: 'sold' },
      ]);
      const ordersBefore = await listAllOrders(api, 1000);
      await expectRefused(
        api,
        () => placeOrder(`{"petId": ${petId}, "quantity": ${quantity}}`),
        status,
        code,
        message,
      );
      expect(await listAllOrders(api, 1000)).toEqual(ordersBefore);
    },
  );

  test.each([
    ['{"petId": 11}', 'quantity must be an integer from 1 to 2147483647'],
    ['{"petId": 11, "quantity": 0}', 'quantity must be an integer from 1 to 2147483647'],
    ['{"petId": 11, "quantity": 1.5}', 'quantity must be an integer from 1 to 2147483647'],
    ['{"petId": 11, "quantity": 2147483648}', 'quantity must be an integer from 1 to 2147483647'],
    ['{"quantity": 1}', 'petId must be an integer from -9223372036854775808 to 9223372036854775807'],
    [
      '{"petId": "11", "quantity": 1}',
      'petId must be an integer from -9223372036854775808 to 9223372036854775807',
    ],
    [
      '{"petId": 11, "quantity": 1, "status": "delivered"}',
      'an order may only contain petId, quantity, shipDate; not allowed: "status"',
    ],
    [
      '{"petId": 11, "quantity": 1, "shipDate": "2026-02-30T00:00:00Z"}',
      'shipDate must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z',
    ],
    [
      '{"petId": 11, "quantity": 1, "shipDate": "0100-02-29T00:00:00Z"}',
      'shipDate must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z',
    ],
    [
      '{"petId": 11, "quantity": 1, "shipDate": "tomorrow"}',
      'shipDate must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z',
    ],
    ['[1]', 'request body must be a JSON object such as {"petId": 7, "quantity": 1}'],
  ])('rejects %s with 400 invalid_request and changes nothing', async (body, message) => {
    await expectRefused(api, () => placeOrder(body), 400, 'invalid_request', message);
  });
});

describe('Idempotency-Key', () => {
  test('a repeat with the same key and order answers the first order again, marked Idempotent-Replayed, and reserves nothing more', async () => {
    await api.inventory.putMany([{ petId: '21', quantity: 10, status: 'available' }]);
    const first = await placeOrder('{"petId": 21, "quantity": 3}', { 'Idempotency-Key': 'order-21-a' });
    expect(first.status).toBe(201);
    const again = await placeOrder('{"quantity": 3, "petId": 21}', { 'idempotency-key': 'order-21-a' });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect([first.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([
      null,
      'true',
    ]);
    expect(stockOf(await api.tableItems(), '21')).toBe('7');
  });

  test('the same key with another order is 422 idempotency_key_reused and changes nothing', async () => {
    await api.inventory.putMany([{ petId: '22', quantity: 10, status: 'available' }]);
    expect((await placeOrder('{"petId": 22, "quantity": 1}', { 'Idempotency-Key': 'k22' })).status).toBe(201);
    await expectRefused(
      api,
      () => placeOrder('{"petId": 22, "quantity": 2}', { 'Idempotency-Key': 'k22' }),
      422,
      'idempotency_key_reused',
      'this Idempotency-Key was used with another order in the last 24 hours',
    );
    // The first order is still the key's answer (the refusal did not remove it).
    expect((await placeOrder('{"petId": 22, "quantity": 1}', { 'Idempotency-Key': 'k22' })).status).toBe(201);
    expect(stockOf(await api.tableItems(), '22')).toBe('9');
  });

  test('a first attempt refused with 409 insufficient_stock is remembered: after a restock its key answers the same 409 and reserves nothing; a new key places the order', async () => {
    await api.inventory.putMany([{ petId: '24', quantity: 1, status: 'available' }]);
    const key = { 'Idempotency-Key': 'order-24-restock' };
    const ordersBefore = await api.tableItems('orders');
    const refused = await placeOrder('{"petId": 24, "quantity": 2}', key);
    expectError(refused, 409, 'insufficient_stock', 'fewer than 2 of petId 24 in stock');
    expect(await api.tableItems('orders')).toEqual(ordersBefore);
    await api.inventory.putMany([{ petId: '24', quantity: 5, status: 'available' }]);
    const again = await placeOrder('{"petId": 24, "quantity": 2}', key);
    expect([again.status, again.text]).toEqual([409, refused.text]);
    expect([refused.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([
      null,
      'true',
    ]);
    expect(stockOf(await api.tableItems(), '24')).toBe('5');
    expect(await api.tableItems('orders')).toEqual(ordersBefore);
    const placed = await placeOrder('{"petId": 24, "quantity": 2}', {
      'Idempotency-Key': 'order-24-new-key',
    });
    expect(placed.status, placed.text).toBe(201);
    expect(stockOf(await api.tableItems(), '24')).toBe('3');
  });

  test('two API keys that share a name have their own Idempotency-Keys: the same key and order from each places two orders', async () => {
    await api.inventory.putMany([{ petId: '25', quantity: 10, status: 'available' }]);
    const [first, second] = [
      await storeNewKey(api.keys, 'twin-client', unthrottled),
      await storeNewKey(api.keys, 'twin-client', unthrottled),
    ];
    const body = '{"petId": 25, "quantity": 2}';
    const key = { 'Idempotency-Key': 'order-25' };
    const answers = [
      await placeOrder(body, { ...key, Authorization: `Bearer ${first}` }),
      await placeOrder(body, { ...key, Authorization: `Bearer ${second}` }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    const ids = answers.map((answer) => /^\{"id":(\d+),/.exec(answer.text)?.[1]);
    expect(new Set(ids).size).toBe(2);
    expect(stockOf(await api.tableItems(), '25')).toBe('6');
    const orders = (await api.tableItems('orders')).filter((order) => order.petId === '25');
    expect(orders.map((order) => order.orderId).sort()).toEqual([...ids].sort());
  });

  test("a key made by rotate shares the scope of the key it replaces: it gets the old key's order back for the same Idempotency-Key", async () => {
    await api.inventory.putMany([{ petId: '26', quantity: 10, status: 'available' }]);
    const old = await storeNewKey(api.keys, 'rotating-client', unthrottled);
    const body = '{"petId": 26, "quantity": 3}';
    const key = { 'Idempotency-Key': 'order-26' };
    const first = await placeOrder(body, { ...key, Authorization: `Bearer ${old}` });
    expect(first.status, first.text).toBe(201);
    const now = new Date();
    const options = { now, graceEnd: new Date(now.getTime() + 3_600_000), allScopes: scopes };
    const once = await rotateKey(api.keys, keyIdOf(apiKeyDigest(old)), options);
    // A rotation of the rotated key stays in the same scope: it is the first key's id that scopes.
    const twice = await rotateKey(api.keys, once.newId, options);
    for (const rotated of [once.apiKey, twice.apiKey]) {
      const again = await placeOrder(body, { ...key, Authorization: `Bearer ${rotated}` });
      expect([again.status, again.text]).toEqual([201, first.text]);
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
    }
    expect(stockOf(await api.tableItems(), '26')).toBe('7');
    expect((await api.tableItems('orders')).filter((order) => order.petId === '26')).toHaveLength(1);
  });

  test.each(['', 'a'.repeat(256), 'with space', 'ümlaut'])('rejects the key %j with 400', async (key) => {
    await api.inventory.putMany([{ petId: '23', quantity: 10, status: 'available' }]);
    await expectRefused(
      api,
      () => placeOrder('{"petId": 23, "quantity": 1}', { 'Idempotency-Key': key }),
      400,
      'invalid_request',
      'Idempotency-Key must be sent once, as 1 to 255 visible ASCII characters',
    );
  });
});

describe('listOrders and getOrderById', () => {
  test('lists newest first in pages linked by Link rel="next"; a bad limit or cursor is 400', async () => {
    await api.inventory.putMany([{ petId: '31', quantity: 10, status: 'available' }]);
    const placed: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await placeOrder('{"petId": 31, "quantity": 1}');
      placed.push(/^\{"id":(\d+)/.exec(response.text)?.[1] as string);
    }
    const all = await listAllOrders(api, 2);
    const mine = all.filter((order) => order.petId === '31').map((order) => order.id);
    expect(mine).toEqual([...placed].reverse());
    const ids = all.map((order) => BigInt(order.id));
    expect(ids).toEqual(newestFirst(ids));
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=01',
      'limit=x',
      'cursor=abc',
      'cursor=MDE',
      'other=1',
    ]) {
      const response = await get(`/store/orders?${query}`);
      expect(response.status, query).toBe(400);
    }
  });

  test('orders placed before ids fit in 2^53 - 1 come after every newer order, across pages, and stay readable and movable', async () => {
    await api.inventory.putMany([{ petId: '33', quantity: 10, status: 'available' }]);
    // Ids as they were assigned before: milliseconds << 22 | 22 random bits (about 7.5e18).
    const early = [8, 9, 10].map((hour) => String((BigInt(Date.UTC(2026, 10, 20, hour)) << 22n) | 12345n));
    await api.putRawItems(
      early.map((orderId) => orderRecord(orderId, '33', 1)),
      'orders',
    );
    const placed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await placeOrder('{"petId": 33, "quantity": 1}');
      expect(response.status).toBe(201);
      placed.push(/^\{"id":(\d+)/.exec(response.text)?.[1] as string);
    }
    for (const limit of [1, 2, 1000]) {
      const all = await listAllOrders(api, limit);
      const mine = all.filter((order) => order.petId === '33').map((order) => order.id);
      expect(mine, `limit ${limit}`).toEqual([...placed].reverse().concat([...early].reverse()));
      const ids = all.map((order) => BigInt(order.id));
      expect(ids, `limit ${limit}`).toEqual(newestFirst(ids));
    }
    const [oldest] = early as [string];
    const read = await get(`/store/orders/${oldest}`);
    expect([read.status, read.text]).toEqual([
      200,
      `{"id":${oldest},"petId":33,"quantity":1,"status":"placed","complete":false}`,
    ]);
    const approved = await declaredRequest(api, 'PATCH', `/store/orders/${oldest}`, {
      body: '{"status": "approved"}',
    });
    expect([approved.status, approved.text]).toEqual([
      200,
      `{"id":${oldest},"petId":33,"quantity":1,"status":"approved","complete":false}`,
    ]);
  });

  test('getOrderById answers 404 for no such order and 400 for a bad id', async () => {
    expectError(await get('/store/orders/1'), 404, 'not_found', 'no order with id 1');
    expect((await get('/store/orders/01')).status).toBe(400);
  });
});
