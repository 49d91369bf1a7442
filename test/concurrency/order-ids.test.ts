/**
 * Order ids stay unique under concurrency (docs/implementation.md "Assigned ids"): with the clock frozen on one
 * millisecond, every placement draws from the same 4096 ids, so concurrent placements meet taken ids (about 8
 * colliding draws expected). A taken id must cancel the transaction on the order's condition and be placed again
 * under a new id, never overwrite: the orders already stored in that millisecond stay as they were, every order
 * answered is stored once under its own id, and the stock drops once per order.
 */
import { randomInt } from 'node:crypto';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { maxAssignedId, orderIdEpoch, orderIdRandomBits } from '#lib/assigned-ids.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import type { Order } from '#lib/orders/order.ts';
import { orderPlacement } from '#lib/orders/store.ts';
import { inventoryRecord, orderRecord, putItems, scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

/** Orders placed at once, each of its own pet (so that no two transactions meet on one entry). */
const placed = 200;
/** Orders stored before, at random ids of the same millisecond. */
const stored = 64;
/** The frozen millisecond: the real time, since the store refuses requests signed far from it. */
const frozenAt = Date.now();
const firstId = BigInt(frozenAt - orderIdEpoch) << BigInt(orderIdRandomBits);

let db: TestStore;
beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
});
afterAll(async () => {
  vi.useRealTimers();
  await db?.close();
});

test(`${placed} orders placed at once within one millisecond get ${placed} distinct ids and overwrite none of the ${stored} stored there`, async () => {
  const petIds = Array.from({ length: placed }, (_, index) => String(1000 + index));
  await putItems(
    db.client,
    testTableNames.inventory,
    petIds.map((petId) => inventoryRecord(petId, 1, 'available')),
  );
  const earlier = new Set<string>();
  while (earlier.size < stored) earlier.add(String(firstId + BigInt(randomInt(2 ** orderIdRandomBits))));
  const earlierItems = [...earlier].map((orderId) => orderRecord(orderId, '1', 1));
  await putItems(db.client, testTableNames.orders, earlierItems);

  const place = orderPlacement(
    toDocumentClient(db.client),
    testTableNames.inventory,
    testTableNames.orders,
    testTableNames.idempotency,
  );
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(frozenAt);
  const results = await Promise.all(petIds.map((petId) => place({ petId, quantity: 1 })));
  vi.useRealTimers();

  results.forEach((result, index) => {
    expect(result).toMatchObject({ petId: petIds[index], quantity: 1, status: 'placed' });
  });
  const ids = (results as Order[]).map((order) => order.id);
  expect(new Set(ids).size).toBe(placed);
  for (const id of ids) {
    expect(BigInt(id) >= firstId && BigInt(id) < firstId + 4096n && BigInt(id) <= maxAssignedId, id).toBe(
      true,
    );
    expect(earlier.has(id), id).toBe(false);
  }
  const orders = await scanTable(db.client, testTableNames.orders);
  expect(orders).toHaveLength(stored + placed);
  for (const item of earlierItems) expect(orders).toContainEqual(item);
  const byId = new Map(orders.map((item) => [item.orderId?.N, item]));
  ids.forEach((id, index) => {
    expect(byId.get(id)).toMatchObject({ petId: { N: petIds[index] }, quantity: { N: '1' } });
  });
  const stock = await scanTable(db.client, testTableNames.inventory);
  expect(stock.map((item) => item.quantity?.N)).toEqual(petIds.map(() => '0'));
});
