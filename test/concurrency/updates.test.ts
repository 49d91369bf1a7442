/**
 * Concurrent requests (docs/contract.md "Inventory semantics": PATCH sets the quantity with one conditional UpdateItem and
 * never creates an entry; GET returns every entry, sorted by petId).
 *
 * 200 PATCHes of one pet with 200 different quantities are in flight at once, with list requests running
 * beside them: each update must answer with the quantity it sent, each list must be a complete, sorted
 * snapshot in which the pet's quantity is one that was written (or the initial one), and the final
 * quantity must be one of those written. 200 concurrent PATCHes of pets with no entry must all be 404 and
 * create nothing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import { manyConnectionsTimeoutMs, retryConnectionErrors } from '#test/support/connection-retries.ts';
import { expectContractError, inventoryItemJson, observe } from '#test/support/contract-oracle.ts';
import { startTestApi, storedEntry, type TestApi, type TestResponse } from '#test/support/test-api.ts';

const target = '9007199254740993';
const items: InventoryItem[] = [
  { petId: '-9223372036854775808', quantity: 1, status: 'sold' },
  { petId: '42', quantity: 2, status: 'available' },
  { petId: target, quantity: 3, status: 'pending' },
  { petId: '9223372036854775807', quantity: 4, status: 'available' },
];
const concurrentUpdates = 200;
const concurrentLists = 40;

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
  await api.inventory.putMany(items);
});
afterAll(() => api.close());

function patch(petId: string, quantity: number): Promise<TestResponse> {
  return retryConnectionErrors(() => api.patch(petId, JSON.stringify({ quantity })));
}

/** The exact list text when the target pet has `quantity` and every other entry is as seeded. */
function listWith(quantity: number): string {
  return `[${items.map((item) => inventoryItemJson(item.petId === target ? { ...item, quantity } : item)).join(',')}]`;
}

describe('concurrent updates and lists', { timeout: manyConnectionsTimeoutMs }, () => {
  test('200 concurrent PATCHes of one pet each answer 200 with a state the PATCHes wrote (body and ETag agreeing) while every concurrent list is a sorted, complete snapshot', async () => {
    const quantities = fc.sample(
      fc.uniqueArray(fc.integer({ min: 0, max: 2147483647 }), {
        minLength: concurrentUpdates,
        maxLength: concurrentUpdates,
      }),
      1,
    )[0] as number[];
    const snapshots = new Map([3, ...quantities].map((quantity) => [listWith(quantity), quantity]));

    const updates = quantities.map((quantity) => patch(target, quantity));
    const lists = Array.from({ length: concurrentLists }, () => retryConnectionErrors(() => api.list()));
    const [updateResponses, listResponses] = await Promise.all([Promise.all(updates), Promise.all(lists)]);

    // Each answer is the entry as read right after its own commit (docs/contract.md "Inventory semantics"):
    // its own quantity, or that of a PATCH committed after it; body and ETag always agree.
    for (const response of updateResponses) {
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      const { quantity } = JSON.parse(response.text) as { quantity: number };
      expect(quantities).toContain(quantity);
      expect(response.text).toBe(inventoryItemJson({ petId: target, quantity, status: 'pending' }));
      expect(response.headers.get('etag')).toBe(`"${quantity}-pending"`);
    }
    for (const response of listResponses) {
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(snapshots.has(response.text), response.text).toBe(true);
    }

    const table = await api.tableItems();
    const final = Number(table.find((item) => item.petId === target)?.quantity);
    expect(quantities).toContain(final);
    expect(table).toEqual(
      items.map((item) =>
        item.petId === target
          ? storedEntry(target, final, item.status, { reason: 'adjustment', keyId: api.keyId })
          : storedEntry(item.petId, item.quantity, item.status, { reason: 'import' }),
      ),
    );
    const list = await api.list();
    expect(list.text).toBe(listWith(final));
  });

  test('200 concurrent PATCHes of pets with no entry all answer 404 not_found and create no entry', async () => {
    const before = await api.tableItems();
    const existing = new Set(items.map((item) => item.petId));
    const petIds = fc
      .sample(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), concurrentUpdates * 2)
      .map(String)
      .filter((petId, i, all) => !existing.has(petId) && all.indexOf(petId) === i)
      .slice(0, concurrentUpdates);
    expect(petIds).toHaveLength(concurrentUpdates);

    const responses = await Promise.all(petIds.map((petId, i) => patch(petId, i)));
    for (const response of responses) {
      expectContractError(observe(response), 404);
    }
    expect(await api.tableItems()).toEqual(before);
  });
});
