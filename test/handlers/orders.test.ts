/**
 * The order functions (functions/place-order, get-order-by-id, list-orders, update-order) invoked in this process
 * with REST proxy events (payload 1.0) against a real DynamoDB API (in-memory dynalite): docs/contract.md "Store
 * orders" and "Errors", the tables as each answer leaves them (lib/orders/store.ts, lib/orders/transitions.ts).
 */

import { BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from 'local-aws';
import { beforeEach, describe, expect, test } from 'vitest';
import { errorResult, eventKeyId, handlerSuite } from '#test/support/handler-suite.ts';
import { type ProxyHandler, type ProxyRequest, restProxyEvent } from '#test/support/lambda-events.ts';
import {
  changeTimeFormat,
  clearInventory,
  inventoryRecord,
  orderRecord,
  putItems,
  type RawItem,
  scanTable,
} from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

/** The four order handlers, imported once the test DynamoDB is up. */
interface OrderHandlers {
  placeOrder: ProxyHandler;
  getOrderById: ProxyHandler;
  listOrders: ProxyHandler;
  updateOrder: ProxyHandler;
}

const suite = handlerSuite<OrderHandlers>(
  async () => ({
    handler: {
      placeOrder: (await import('#functions/place-order/handler.ts')).handler,
      getOrderById: (await import('#functions/get-order-by-id/handler.ts')).handler,
      listOrders: (await import('#functions/list-orders/handler.ts')).handler,
      updateOrder: (await import('#functions/update-order/handler.ts')).handler,
    },
  }),
  [],
  { ORDERS_TABLE_NAME: testTableNames.orders, IDEMPOTENCY_TABLE_NAME: testTableNames.idempotency },
);

/** Every item of `table`, deleted with raw BatchWriteItem requests (`key`: the table's partition key). */
async function clearTable(table: string, key: string): Promise<void> {
  const items = await scanTable(suite.db.client, table);
  for (let start = 0; start < items.length; start += 25) {
    const requests = items
      .slice(start, start + 25)
      .map((item) => ({ DeleteRequest: { Key: { [key]: item[key] } } }));
    await suite.db.client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests as never } }));
  }
}

beforeEach(async () => {
  await clearInventory(suite.db.client, testTableNames.inventory);
  await clearTable(testTableNames.orders, 'orderId');
  await putItems(suite.db.client, testTableNames.inventory, [
    inventoryRecord('11', 5, 'available'),
    inventoryRecord('14', 5, 'pending'),
    inventoryRecord('15', 1, 'sold'),
    inventoryRecord('16', 2147483646, 'available'),
  ]);
});

const anyChangeTime = expect.stringMatching(changeTimeFormat);
const inventoryItems = () => scanTable(suite.db.client, testTableNames.inventory);
const orderItems = () => scanTable(suite.db.client, testTableNames.orders);

/** `request` as the order function `name` receives it, the authorizer's `keyId` removed when `keyId` is false. */
function invoke(
  name: keyof OrderHandlers,
  request: ProxyRequest,
  keyId = true,
): Promise<APIGatewayProxyResult> {
  const event: APIGatewayProxyEvent = restProxyEvent(request);
  if (!keyId) delete event.requestContext.authorizer?.keyId;
  return suite.handler[name](event, lambdaContext(name));
}

/** POST /store/orders with `body` and any extra `headers`. */
const placeOrder = (body: string, headers: Record<string, string> = {}, keyId = true) =>
  invoke(
    'placeOrder',
    {
      method: 'POST',
      resource: '/store/orders',
      path: '/store/orders',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    },
    keyId,
  );

/** GET /store/orders/{orderId}. */
const getOrder = (orderId: string) =>
  invoke('getOrderById', {
    method: 'GET',
    resource: '/store/orders/{orderId}',
    path: `/store/orders/${orderId}`,
    pathParameters: { orderId },
  });

/** GET /store/orders with `query`. */
const listOrders = (query: Record<string, string[]> = {}) =>
  invoke('listOrders', { method: 'GET', resource: '/store/orders', path: '/store/orders', query });

/** PATCH /store/orders/{orderId} to `status`. */
const moveOrder = (orderId: string, status: string, keyId = true) =>
  invoke(
    'updateOrder',
    {
      method: 'PATCH',
      resource: '/store/orders/{orderId}',
      path: `/store/orders/${orderId}`,
      pathParameters: { orderId },
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status }),
    },
    keyId,
  );

/** An order as stored by placeOrder and moved by updateOrder: {@link orderRecord} with its times and key. */
function storedOrder(
  orderId: string,
  petId: string,
  quantity: number,
  status: string,
  extra: RawItem = {},
): RawItem {
  return {
    ...orderRecord(orderId, petId, quantity, status),
    createdAt: { S: anyChangeTime },
    changedAt: { S: anyChangeTime },
    keyId: { S: eventKeyId },
    ...extra,
  };
}

/** The id of the order a 201 answer placed. */
const placedId = (result: APIGatewayProxyResult) => String(JSON.parse(result.body).id);

describe('placeOrder', () => {
  test('reserves the stock and answers 201 with the order and its Location; the order and the change are stored', async () => {
    const result = await placeOrder('{"petId": 11, "quantity": 2, "shipDate": "2026-12-01T10:00:00Z"}');
    const id = placedId(result);
    expect(result).toStrictEqual({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: `/v1/store/orders/${id}` },
      body: `{"id":${id},"petId":11,"quantity":2,"shipDate":"2026-12-01T10:00:00Z","status":"placed","complete":false}`,
    });
    expect(await orderItems()).toStrictEqual([
      storedOrder(id, '11', 2, 'placed', { shipDate: { S: '2026-12-01T10:00:00Z' } }),
    ]);
    expect((await inventoryItems())[0]).toStrictEqual(
      inventoryRecord('11', 3, 'available', {
        reason: 'order_placed',
        keyId: eventKeyId,
        orderId: id,
        changedAt: anyChangeTime,
      }),
    );
  });

  test('the whole stock can be ordered; without a key id in the context none is recorded', async () => {
    const result = await placeOrder('{"petId": 11, "quantity": 5}', {}, false);
    expect(result.statusCode).toBe(201);
    const id = placedId(result);
    const { keyId: _none, ...order } = storedOrder(id, '11', 5, 'placed');
    expect(await orderItems()).toStrictEqual([order]);
    expect((await inventoryItems())[0]).toStrictEqual(
      inventoryRecord('11', 0, 'available', {
        reason: 'order_placed',
        orderId: id,
        changedAt: anyChangeTime,
      }),
    );
  });

  test.each([
    ['404 not_found for a petId without entry', '12', 1, 404, 'not_found', 'no inventory entry for petId 12'],
    [
      '409 insufficient_stock for more than the stock',
      '11',
      6,
      409,
      'insufficient_stock',
      'fewer than 6 of petId 11 in stock',
    ],
    [
      '409 pet_unavailable for a pending entry',
      '14',
      1,
      409,
      'pet_unavailable',
      'petId 14 is not available: its status is pending',
    ],
    [
      '409 pet_unavailable, not insufficient_stock, for a sold entry short of stock',
      '15',
      2,
      409,
      'pet_unavailable',
      'petId 15 is not available: its status is sold',
    ],
  ])('answers %s and changes nothing', async (_name, petId, quantity, status, code, message) => {
    const before = await inventoryItems();
    const result = await placeOrder(`{"petId": ${petId}, "quantity": ${quantity}}`);
    expect(result).toStrictEqual(errorResult(status, code, message));
    expect(await inventoryItems()).toStrictEqual(before);
    expect(await orderItems()).toStrictEqual([]);
  });

  test('a repeat with the same Idempotency-Key answers the first order again and reserves nothing more; another order under it is 422', async () => {
    const key = { 'Idempotency-Key': `order-${Date.now()}` };
    const first = await placeOrder('{"petId": 11, "quantity": 1}', key);
    const again = await placeOrder('{"petId": 11, "quantity": 1}', key);
    expect(first.statusCode).toBe(201);
    expect([again.statusCode, again.body, again.headers?.['Idempotent-Replayed']]).toStrictEqual([
      201,
      first.body,
      'true',
    ]);
    const reused = await placeOrder('{"petId": 11, "quantity": 2}', key);
    expect([reused.statusCode, JSON.parse(reused.body).code]).toStrictEqual([422, 'idempotency_key_reused']);
    expect(await orderItems()).toStrictEqual([storedOrder(placedId(first), '11', 1, 'placed')]);
    expect((await inventoryItems())[0]?.quantity).toStrictEqual({ N: '4' });
  });
});

describe('getOrderById', () => {
  test('answers the stored order, 404 for no such order', async () => {
    await putItems(suite.db.client, testTableNames.orders, [
      {
        ...orderRecord('9223372036854775807', '-9223372036854775808', 3, 'delivered'),
        shipDate: { S: '2026-12-01T10:00:00Z' },
      },
    ]);
    expect(await getOrder('9223372036854775807')).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '{"id":9223372036854775807,"petId":-9223372036854775808,"quantity":3,"shipDate":"2026-12-01T10:00:00Z","status":"delivered","complete":true}',
    });
    expect(await getOrder('8')).toStrictEqual(errorResult(404, 'not_found', 'no order with id 8'));
  });
});

describe('listOrders', () => {
  /** Orders 1 to 5 (ids that fit in 2^53 - 1) and two assigned before (larger ids). */
  const newer = ['1', '2', '3', '4', '5'];
  const early = ['9007199254740992', '9223372036854775807'];
  beforeEach(async () => {
    await putItems(
      suite.db.client,
      testTableNames.orders,
      [...newer, ...early].map((id) => orderRecord(id, '11', 1)),
    );
  });

  /** The ids of a 200 answer's orders. */
  const ids = (result: APIGatewayProxyResult) =>
    (JSON.parse(result.body.replaceAll(/"id":(\d+)/g, '"id":"$1"')) as { id: string }[]).map(
      (order) => order.id,
    );

  test('newest first (the early, larger ids last), 100 a page by default, no Link on the last page', async () => {
    const result = await listOrders();
    expect(result.statusCode).toBe(200);
    expect(result.headers).toStrictEqual({ 'Content-Type': 'application/json' });
    expect(ids(result)).toStrictEqual(['5', '4', '3', '2', '1', '9223372036854775807', '9007199254740992']);
    expect(JSON.parse(result.body)[0]).toStrictEqual({
      id: 5,
      petId: 11,
      quantity: 1,
      status: 'placed',
      complete: false,
    });
  });

  test.each([1, 2, 3, 4, 5, 6, 7])(
    'pages of %i follow the Link rel="next" through every order once',
    async (limit) => {
      const seen: string[] = [];
      let query: Record<string, string[]> = { limit: [String(limit)] };
      for (let page = 0; page < 10; page++) {
        const result = await listOrders(query);
        expect(result.statusCode).toBe(200);
        const shown = ids(result);
        seen.push(...shown);
        const link = result.headers?.Link;
        if (link === undefined) break;
        expect(shown).toHaveLength(limit);
        const match = /^<\/v1\/store\/orders\?limit=(\d+)&cursor=([A-Za-z0-9_-]+)>; rel="next"$/.exec(
          String(link),
        );
        expect(match?.[1]).toBe(String(limit));
        query = { limit: [String(limit)], cursor: [String(match?.[2])] };
      }
      expect(seen).toStrictEqual(['5', '4', '3', '2', '1', '9223372036854775807', '9007199254740992']);
    },
  );

  test('a page that ends on the last order has no Link', async () => {
    const result = await listOrders({ limit: ['7'] });
    expect(ids(result)).toHaveLength(7);
    expect(result.headers?.Link).toBeUndefined();
  });

  test.each([
    [{ limit: ['0'] }, 'limit must be an integer from 1 to 1000'],
    [{ limit: ['1001'] }, 'limit must be an integer from 1 to 1000'],
    [{ cursor: ['NDI='] }, 'cursor is not valid: use the one of the Link header of the previous page'],
  ])('%j is 400 invalid_request', async (query, message) => {
    expect(await listOrders(query)).toStrictEqual(errorResult(400, 'invalid_request', message));
  });
});

describe('updateOrder', () => {
  /** A placed order of `quantity` of petId 11, its id. */
  async function placed(quantity = 2, petId = '11'): Promise<string> {
    return placedId(await placeOrder(`{"petId": ${petId}, "quantity": ${quantity}}`));
  }

  test('placed -> approved -> delivered: each answers the order as moved; delivered is complete', async () => {
    const id = await placed();
    const approved = await moveOrder(id, 'approved');
    expect(approved).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: `{"id":${id},"petId":11,"quantity":2,"status":"approved","complete":false}`,
    });
    expect(await orderItems()).toStrictEqual([storedOrder(id, '11', 2, 'approved')]);
    const delivered = await moveOrder(id, 'delivered');
    expect(delivered.body).toBe(`{"id":${id},"petId":11,"quantity":2,"status":"delivered","complete":true}`);
    expect(await orderItems()).toStrictEqual([storedOrder(id, '11', 2, 'delivered')]);
    expect((await inventoryItems())[0]?.quantity).toStrictEqual({ N: '3' });
  });

  test('a move without a key id in the context removes the key id the order had', async () => {
    const id = await placed();
    expect((await moveOrder(id, 'approved', false)).statusCode).toBe(200);
    const { keyId: _none, ...order } = storedOrder(id, '11', 2, 'approved');
    expect(await orderItems()).toStrictEqual([order]);
  });

  test('a move to the status the order has answers it unchanged and writes nothing', async () => {
    const id = await placed();
    const before = await orderItems();
    const again = await moveOrder(id, 'placed');
    expect(again.body).toBe(`{"id":${id},"petId":11,"quantity":2,"status":"placed","complete":false}`);
    expect(await orderItems()).toStrictEqual(before);
  });

  test.each([
    ['placed', 'delivered', []],
    ['approved', 'placed', ['approved']],
    ['delivered', 'cancelled', ['approved', 'delivered']],
    ['cancelled', 'approved', ['cancelled']],
    ['delivered', 'approved', ['approved', 'delivered']],
  ])('%s -> %s is 409 invalid_transition and changes nothing', async (from, to, path) => {
    const id = await placed();
    for (const step of path) expect((await moveOrder(id, step)).statusCode).toBe(200);
    const orders = await orderItems();
    const inventory = await inventoryItems();
    expect(await moveOrder(id, to)).toStrictEqual(
      errorResult(409, 'invalid_transition', `cannot move order ${id} from ${from} to ${to}`),
    );
    expect(await orderItems()).toStrictEqual(orders);
    expect(await inventoryItems()).toStrictEqual(inventory);
  });

  test.each([['placed'], ['approved']])(
    '%s -> cancelled returns the quantity to the stock, recorded as order_cancelled',
    async (from) => {
      const id = await placed();
      if (from === 'approved') await moveOrder(id, 'approved');
      const result = await moveOrder(id, 'cancelled');
      expect(result.body).toBe(`{"id":${id},"petId":11,"quantity":2,"status":"cancelled","complete":false}`);
      expect(await orderItems()).toStrictEqual([storedOrder(id, '11', 2, 'cancelled')]);
      expect((await inventoryItems())[0]).toStrictEqual(
        inventoryRecord('11', 5, 'available', {
          reason: 'order_cancelled',
          keyId: eventKeyId,
          orderId: id,
          changedAt: anyChangeTime,
        }),
      );
    },
  );

  test('a cancellation without a key id records none on the order or the entry', async () => {
    const id = await placed();
    expect((await moveOrder(id, 'cancelled', false)).statusCode).toBe(200);
    const { keyId: _none, ...order } = storedOrder(id, '11', 2, 'cancelled');
    expect(await orderItems()).toStrictEqual([order]);
    expect((await inventoryItems())[0]).toStrictEqual(
      inventoryRecord('11', 5, 'available', {
        reason: 'order_cancelled',
        orderId: id,
        changedAt: anyChangeTime,
      }),
    );
  });

  test('a cancellation that fills the stock to exactly 2147483647 is made', async () => {
    const id = await placed(1, '16');
    await putItems(suite.db.client, testTableNames.inventory, [
      inventoryRecord('16', 2147483646, 'available'),
    ]);
    expect((await moveOrder(id, 'cancelled')).statusCode).toBe(200);
    expect((await inventoryItems()).at(-1)?.quantity).toStrictEqual({ N: '2147483647' });
  });

  test('a cancellation whose quantity has no room in the stock is 409 and changes nothing', async () => {
    const id = await placed(2, '16');
    await putItems(suite.db.client, testTableNames.inventory, [
      inventoryRecord('16', 2147483646, 'available'),
    ]);
    const orders = await orderItems();
    expect(await moveOrder(id, 'cancelled')).toStrictEqual(
      errorResult(
        409,
        'invalid_transition',
        `cannot move order ${id} from placed to cancelled: returning 2 would put more than 2147483647 of petId 16 in stock`,
      ),
    );
    expect(await orderItems()).toStrictEqual(orders);
    expect((await inventoryItems()).at(-1)).toStrictEqual(inventoryRecord('16', 2147483646, 'available'));
  });

  test('a cancellation whose pet has no entry any more is 409 and changes nothing', async () => {
    const id = await placed();
    await clearInventory(suite.db.client, testTableNames.inventory);
    const orders = await orderItems();
    expect(await moveOrder(id, 'cancelled')).toStrictEqual(
      errorResult(
        409,
        'invalid_transition',
        `cannot move order ${id} from placed to cancelled: petId 11 has no inventory entry to return the stock to`,
      ),
    );
    expect(await orderItems()).toStrictEqual(orders);
    expect(await inventoryItems()).toStrictEqual([]);
  });

  test('no such order is 404; a bad orderId or status is 400', async () => {
    expect(await moveOrder('8', 'approved')).toStrictEqual(
      errorResult(404, 'not_found', 'no order with id 8'),
    );
    expect(await moveOrder('08', 'approved')).toStrictEqual(
      errorResult(
        400,
        'invalid_request',
        "orderId must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal without leading zeros or '+'",
      ),
    );
    expect(await moveOrder('8', 'shipped')).toStrictEqual(
      errorResult(400, 'invalid_request', 'status must be one of placed, approved, delivered, cancelled'),
    );
  });
});
