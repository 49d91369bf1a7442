/**
 * listInventory's two shapes over the sorted list: one page with the query of the next, or the whole list as
 * streamed JSON text (docs/contract.md "Inventory semantics").
 */
import { Readable } from 'node:stream';
import { logger } from '../logger.ts';
import { listIndex } from '../tables.ts';
import { type InventoryItem, inventoryJson } from './inventory-item.ts';
import { maxQueryItems } from './list-merge.ts';
import { encodeCursor, type ListQuery } from './list-query.ts';
import type { InventoryStore } from './store.ts';

/** One page of the list: its entries and, when more follow, the query string of the next page. */
export interface InventoryPage {
  items: InventoryItem[];
  /** `limit`, `status` and `lowStock` when filtered, and the `cursor` after the page's last entry (URL-encoded). */
  next?: string;
}

/**
 * The page of at most `query.limit` entries after `query.after`. Each shard's Queries read about twice the
 * shard's share of the page (plus one entry, to know whether more follow), so a small page is a small read.
 */
export async function listPage(
  store: InventoryStore,
  query: ListQuery & { limit: number },
): Promise<InventoryPage> {
  const items: InventoryItem[] = [];
  const queryLimit = Math.min(maxQueryItems, Math.ceil((2 * (query.limit + 1)) / listIndex.shards) + 1);
  for await (const batch of store.listSorted({ ...query, queryLimit })) {
    items.push(...batch);
    if (items.length > query.limit) break;
  }
  if (items.length <= query.limit) return { items };
  items.length = query.limit;
  const next = new URLSearchParams({ limit: String(query.limit) });
  if (query.status) next.set('status', query.status);
  if (query.lowStock) next.set('lowStock', 'true');
  next.set('cursor', encodeCursor((items.at(-1) as InventoryItem).petId, query));
  return { items, next: next.toString() };
}

/** The JSON array text of `first` and the batches that follow, closed only after the last batch. */
async function* jsonArray(
  first: InventoryItem[],
  rest: AsyncGenerator<InventoryItem[]>,
  onEnd: (count: number) => void,
): AsyncGenerator<string> {
  let count = first.length;
  let separator = '[';
  if (first.length > 0) {
    yield `[${inventoryJson(first).slice(1, -1)}`;
    separator = ',';
  }
  try {
    for await (const batch of rest) {
      count += batch.length;
      yield `${separator}${inventoryJson(batch).slice(1, -1)}`;
      separator = ',';
    }
  } catch (error) {
    logger.error('list stream failed', { errorName: (error as Error)?.name });
    throw error;
  }
  yield separator === '[' ? '[]' : ']';
  onEnd(count);
}

/**
 * The whole list under `query`'s filter and position as a stream of JSON array text. The first batch is read
 * before it returns, so a store that fails at once rejects here (an error response, not a broken body);
 * a later failure is logged and ends the stream. `onEnd(count)` is called once the closing `]` is out.
 */
export async function listStream(
  store: InventoryStore,
  query: ListQuery,
  onEnd: (count: number) => void,
): Promise<Readable> {
  const batches = store.listSorted(query);
  const first = await batches.next();
  return Readable.from(jsonArray(first.done ? [] : first.value, batches, onEnd));
}
