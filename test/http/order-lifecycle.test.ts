/**
 * updateOrder over HTTP (docs/contract.md "Store orders"): every pair of order statuses judged by the contract
 * oracle (`contractOrderMove`): each allowed move is 200 with the new status (`delivered` complete, `cancelled`
 * with the quantity back in stock and the restock recorded on the entry), the current status is 200 changing
 * nothing, every other move 409 `invalid_transition` naming both statuses and changing nothing; 404 and 400;
 * 50 concurrent cancels of one order restock it once; 40 concurrent orders of 1 (and of 2) against a stock of
 * 40, every other one cancelled while the others are still arriving, end with the stock of the orders kept
 * taken, never below zero. Every response is checked against openapi.yaml; the tables are read raw.
 */
import { describe, expect, test } from 'vitest';
import { contractOrderMove, contractOrderStatuses } from '#test/support/contract-oracle.ts';
import { declaredRequest, expectError } from '#test/support/http-assertions.ts';
import { rawClientSuite, sendJson } from '#test/support/raw-http.ts';
import { changeTimeFormat } from '#test/support/raw-tables.ts';
import { storedEntry, testApiSuite } from '#test/support/test-api.ts';

/** Connections of the raw client: every request of a concurrency run in flight at once on its own. */
const connections = 100;

const api = testApiSuite();
const client = rawClientSuite(api, { maxSockets: connections, retryConnectionErrors: true });

/** The steps that bring a new order to each status. */
const pathTo: Record<string, string[]> = {
  placed: [],
  approved: ['approved'],
  delivered: ['approved', 'delivered'],
  cancelled: ['cancelled'],
};

const patchOrder = (orderId: string, body: string) =>
  declaredRequest(api, 'PATCH', `/store/orders/${orderId}`, { body });

/** The exact JSON of an order without a shipDate. */
function orderText(id: string, petId: string, quantity: number, status: string): string {
  const complete = status === 'delivered';
  return `{"id":${id},"petId":${petId},"quantity":${quantity},"status":"${status}","complete":${complete}}`;
}

/** Places an order of `quantity` of `petId` and returns its id. */
async function place(petId: string, quantity: number): Promise<string> {
  const response = await declaredRequest(api, 'POST', '/store/orders', {
    body: `{"petId": ${petId}, "quantity": ${quantity}}`,
  });
  expect(response.status, response.text).toBe(201);
  return /^\{"id":(\d+),/.exec(response.text)?.[1] as string;
}

/** `PATCH /store/orders/<orderId>` to `status` (default `cancelled`) over the raw client. */
const sendCancel = (orderId: string, status = 'cancelled') =>
  sendJson(client, api.authorization, 'PATCH', `/store/orders/${orderId}`, JSON.stringify({ status }));

/** The stored order `orderId`, raw (numbers as decimal text, `complete` as its attribute JSON). */
async function storedOrder(orderId: string) {
  return (await api.tableItems('orders')).find((item) => item.orderId === orderId);
}

/** The stored stock of `petId`. */
async function stockOf(petId: string): Promise<number> {
  return Number((await api.tableItems()).find((item) => item.petId === petId)?.quantity);
}

/** Both tables, raw: what a refused request must leave as it was. */
async function tables() {
  return { inventory: await api.tableItems(), orders: await api.tableItems('orders') };
}

const pairs = contractOrderStatuses.flatMap((from) => contractOrderStatuses.map((to) => [from, to] as const));

describe('every move between two statuses, as the contract judges it', () => {
  test.each(pairs)('from %s to %s', async (from, to) => {
    // A pet of its own per pair: its stock shows exactly what this order did.
    const petId = String(1000 + pairs.findIndex(([f, t]) => f === from && t === to));
    await api.inventory.putMany([{ petId, quantity: 10, status: 'available' }]);
    const orderId = await place(petId, 3);
    for (const step of pathTo[from] ?? []) {
      expect((await patchOrder(orderId, JSON.stringify({ status: step }))).status).toBe(200);
    }
    const before = await tables();
    const stockBefore = await stockOf(petId);
    expect(stockBefore).toBe(from === 'cancelled' ? 10 : 7);

    const response = await patchOrder(orderId, JSON.stringify({ status: to }));

    const outcome = contractOrderMove(from, to);
    if (outcome === 'refused') {
      expectError(response, 409, 'invalid_transition', `cannot move order ${orderId} from ${from} to ${to}`);
      expect(await tables()).toEqual(before);
      return;
    }
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe(orderText(orderId, petId, 3, to));
    expect(await storedOrder(orderId)).toMatchObject({
      status: to,
      complete: JSON.stringify({ BOOL: to === 'delivered' }),
    });
    const read = await declaredRequest(api, 'GET', `/store/orders/${orderId}`);
    expect(read.text).toBe(response.text);
    if (outcome === 'unchanged') {
      expect(await tables()).toEqual(before);
    } else if (to === 'cancelled') {
      // The quantity is back, and the entry records the restock: why, which order, which key.
      expect((await api.tableItems()).find((item) => item.petId === petId)).toEqual(
        storedEntry(petId, 10, 'available', { reason: 'order_cancelled', orderId, keyId: api.keyId }),
      );
    } else {
      expect(await api.tableItems()).toEqual(before.inventory);
    }
  });

  test("each write records its change: order_placed with the order's id and the key's on the entry, the time and the key on the order", async () => {
    await api.inventory.putMany([{ petId: '16', quantity: 5, status: 'available' }]);
    const orderId = await place('16', 2);
    expect((await api.tableItems()).find((item) => item.petId === '16')).toEqual(
      storedEntry('16', 3, 'available', { reason: 'order_placed', orderId, keyId: api.keyId }),
    );
    const placed = await storedOrder(orderId);
    expect(placed).toMatchObject({ status: 'placed', keyId: api.keyId, changedAt: placed?.createdAt });
    expect(placed?.changedAt).toMatch(changeTimeFormat);

    expect((await patchOrder(orderId, '{"status": "approved"}')).status).toBe(200);

    const approved = await storedOrder(orderId);
    expect(approved).toMatchObject({ status: 'approved', keyId: api.keyId });
    expect(approved?.changedAt).toMatch(changeTimeFormat);
    expect(String(approved?.changedAt) >= String(placed?.changedAt)).toBe(true);
  });

  test('a delivered order cannot be cancelled: "cannot move order <id> from delivered to cancelled", stock kept', async () => {
    await api.inventory.putMany([{ petId: '12', quantity: 5, status: 'available' }]);
    const orderId = await place('12', 2);
    await patchOrder(orderId, '{"status": "approved"}');
    await patchOrder(orderId, '{"status": "delivered"}');
    const before = await tables();
    const response = await patchOrder(orderId, '{"status": "cancelled"}');
    expectError(
      response,
      409,
      'invalid_transition',
      `cannot move order ${orderId} from delivered to cancelled`,
    );
    expect(await tables()).toEqual(before);
    expect(await stockOf('12')).toBe(3);
  });
});

describe('a cancellation with no room for its stock (docs/contract.md "Store orders", a decision)', () => {
  test('returning the quantity would put the stock above 2147483647: 409 invalid_transition, nothing changed', async () => {
    await api.inventory.putMany([{ petId: '14', quantity: 10, status: 'available' }]);
    const orderId = await place('14', 3);
    const full = await declaredRequest(api, 'PATCH', '/inventory/14', { body: '{"quantity": 2147483646}' });
    expect(full.status).toBe(200);
    const before = await tables();
    expectError(
      await patchOrder(orderId, '{"status": "cancelled"}'),
      409,
      'invalid_transition',
      `cannot move order ${orderId} from placed to cancelled: returning 3 would put more than 2147483647 of petId 14 in stock`,
    );
    expect(await tables()).toEqual(before);
  });
});

describe('refusals before the lifecycle change nothing', () => {
  test('an order that does not exist is 404 not_found', async () => {
    const before = await tables();
    expectError(
      await patchOrder('404404', '{"status": "cancelled"}'),
      404,
      'not_found',
      'no order with id 404404',
    );
    expect(await tables()).toEqual(before);
  });

  test.each([
    ['{"status": "shipped"}', 'status must be one of placed, approved, delivered, cancelled'],
    ['{"status": null}', 'status must be one of placed, approved, delivered, cancelled'],
    ['{}', 'status must be one of placed, approved, delivered, cancelled'],
    [
      '{"status": "cancelled", "quantity": 1}',
      'request body may only contain status; not allowed: "quantity"',
    ],
    ['["cancelled"]', 'request body must be a JSON object such as {"status": "approved"}'],
  ])('%s is 400 invalid_request', async (body, message) => {
    await api.inventory.putMany([{ petId: '13', quantity: 5, status: 'available' }]);
    const orderId = await place('13', 1);
    const before = await tables();
    expectError(await patchOrder(orderId, body), 400, 'invalid_request', message);
    expect(await tables()).toEqual(before);
  });

  test('a bad orderId is 400 before any lookup', async () => {
    const response = await patchOrder('01', '{"status": "cancelled"}');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).message).toContain('orderId must be an integer');
  });
});

describe('concurrency (docs/contract.md: a cancellation restocks exactly once)', () => {
  test('50 concurrent cancels of one order (50 connections): all 200 cancelled, the stock restored once', async () => {
    await api.inventory.putMany([{ petId: '50', quantity: 10, status: 'available' }]);
    const orderId = await place('50', 4);
    expect(await stockOf('50')).toBe(6);
    // Every execution environment of the local function warm first (a PATCH to the current status changes
    // nothing), so the cancels run side by side rather than behind cold starts.
    await Promise.all(Array.from({ length: 8 }, () => sendCancel(orderId, 'placed')));

    const responses = await Promise.all(Array.from({ length: 50 }, () => sendCancel(orderId)));

    for (const response of responses) {
      expect(response.status, response.text).toBe(200);
      expect(response.text).toBe(orderText(orderId, '50', 4, 'cancelled'));
    }
    expect(await stockOf('50')).toBe(10);
    expect(await storedOrder(orderId)).toMatchObject({ status: 'cancelled' });
  });

  test.each([
    [1, 'each order fits: all 40 placed, 20 kept'],
    [2, 'twice the stock asked: refusals are insufficient_stock, and cancels make room for later orders'],
  ])(
    '40 concurrent orders of %i against a stock of 40, every other one cancelled as soon as placed while the others arrive (%s): stock 40 - the orders kept, never below zero',
    async (quantity) => {
      const petId = String(40 + quantity);
      await api.inventory.putMany([{ petId, quantity: 40, status: 'available' }]);
      const stockSeen: number[] = [];
      let running = true;
      // Reads the stock over HTTP for as long as the run lasts.
      const watcher = (async () => {
        while (running) {
          const read = await api.request('GET', `/inventory/${petId}`, {
            headers: { Authorization: api.authorization },
          });
          stockSeen.push(JSON.parse(read.text).quantity);
        }
      })();

      const runs = await Promise.all(
        Array.from({ length: 40 }, async (_, index) => {
          const body = JSON.stringify({ petId: Number(petId), quantity });
          const placed = await sendJson(client, api.authorization, 'POST', '/store/orders', body);
          if (placed.status === 409) {
            expectError(
              placed,
              409,
              'insufficient_stock',
              `fewer than ${quantity} of petId ${petId} in stock`,
            );
            return { kept: false };
          }
          expect(placed.status, placed.text).toBe(201);
          const orderId = /^\{"id":(\d+),/.exec(placed.text)?.[1] as string;
          if (index % 2 === 1) return { orderId, kept: true };
          // Cancelled as soon as it is placed, while the other orders are still in flight.
          const cancel = await sendCancel(orderId);
          expect(cancel.status, cancel.text).toBe(200);
          expect(cancel.text).toBe(orderText(orderId, petId, quantity, 'cancelled'));
          return { orderId, kept: false };
        }),
      );
      running = false;
      await watcher;

      const placed = runs.filter((run) => run.orderId !== undefined);
      const kept = runs.filter((run) => run.kept);
      if (quantity === 1) expect(kept).toHaveLength(20);
      expect(await stockOf(petId)).toBe(40 - quantity * kept.length);
      expect(stockSeen.length).toBeGreaterThan(0);
      for (const stock of stockSeen) expect(stock).toBeGreaterThanOrEqual(0);
      const orders = (await api.tableItems('orders')).filter((order) => order.petId === petId);
      expect(orders).toHaveLength(placed.length);
      for (const run of placed) {
        expect(orders.find((order) => order.orderId === run.orderId)?.status).toBe(
          run.kept ? 'placed' : 'cancelled',
        );
      }
    },
  );
});
