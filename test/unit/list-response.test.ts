/**
 * listInventory's page and stream over a store's sorted batches (lib/inventory/list-response.ts):
 * docs/contract.md "Inventory semantics" (pages, `limit`, the filters a next page keeps, the whole list as one
 * JSON array). The store is a stand-in that yields given batches and records what the page asked of it.
 */
import { text } from 'node:stream/consumers';
import { describe, expect, test } from 'vitest';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import type { ListOptions } from '#lib/inventory/list-merge.ts';
import { encodeCursor } from '#lib/inventory/list-query.ts';
import { listPage, listStream } from '#lib/inventory/list-response.ts';
import type { InventoryStore } from '#lib/inventory/store.ts';

/** Entry `petId` with quantity `petId`, available. */
const item = (petId: number): InventoryItem => ({
  petId: String(petId),
  quantity: petId,
  status: 'available',
});

/** A store whose `listSorted` yields `batches`; it records the options asked and how many batches were read. */
function storeOf(batches: InventoryItem[][]) {
  const seen = { options: [] as (ListOptions | undefined)[], read: 0 };
  const store = {
    async *listSorted(options?: ListOptions) {
      seen.options.push(options);
      for (const batch of batches) {
        seen.read++;
        yield batch;
      }
    },
  } as InventoryStore;
  return { store, seen };
}

describe('listPage', () => {
  test('each shard Query reads about twice its share of the page plus one, at most 1000 items', async () => {
    for (const [limit, queryLimit] of [
      [1, 2],
      [10, 4],
      [100, 27],
      [3999, 1000],
    ] as const) {
      const { store, seen } = storeOf([]);
      await listPage(store, { limit, status: 'sold' });
      expect(seen.options).toStrictEqual([{ limit, status: 'sold', queryLimit }]);
    }
  });

  test('stops reading once it holds more than the page; the next page keeps limit, status, lowStock and the cursor', async () => {
    const { store, seen } = storeOf([[item(1), item(2)], [item(3)], [item(4)]]);
    const query = { limit: 2, status: 'available' as const, lowStock: true as const };
    const page = await listPage(store, query);
    expect(page.items).toStrictEqual([item(1), item(2)]);
    expect(seen.read).toBe(2);
    expect(page.next).toBe(
      `limit=2&status=available&lowStock=true&cursor=${encodeURIComponent(encodeCursor('2', query))}`,
    );
  });

  test('no next page when the list ends within the page', async () => {
    const { store } = storeOf([[item(1)], [item(2)]]);
    expect(await listPage(store, { limit: 2 })).toStrictEqual({ items: [item(1), item(2)] });
  });
});

describe('listStream', () => {
  test('one JSON array over every batch, an empty first batch included; onEnd gets the count after the last', async () => {
    const { store } = storeOf([[], [item(1), item(2)], [item(3)]]);
    const counts: number[] = [];
    const stream = await listStream(store, {}, (count) => counts.push(count));
    expect(await text(stream)).toBe(
      '[{"petId":1,"quantity":1,"status":"available"},{"petId":2,"quantity":2,"status":"available"},' +
        '{"petId":3,"quantity":3,"status":"available"}]',
    );
    expect(counts).toStrictEqual([3]);
  });

  test('an empty list is []', async () => {
    const { store } = storeOf([[], []]);
    const counts: number[] = [];
    expect(await text(await listStream(store, {}, (count) => counts.push(count)))).toBe('[]');
    expect(counts).toStrictEqual([0]);
  });
});
