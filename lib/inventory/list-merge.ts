/**
 * The sorted read of the inventory: the k-way merge of the list index's shards into petId order, streaming
 * (docs/contract.md "Inventory semantics", docs/architecture.md "Data layout").
 */
import {
  type DynamoDBDocumentClient,
  NumberValue,
  QueryCommand,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { listIndex, lowStockIndex } from '../tables.ts';
import type { InventoryItem, PetStatus } from './inventory-item.ts';
import { comparePetIds } from './pet-id.ts';
import { fromStoredItem } from './stored-item.ts';

/** What a sorted read of the inventory takes (docs/contract.md "Inventory semantics"). */
export interface ListOptions {
  /** Only entries with a petId above this one (a page's cursor position). */
  after?: string;
  /** Only entries of this status. */
  status?: PetStatus;
  /**
   * Only low entries (`quantity <= reorderPoint`): read from the sparse low-stock index, each candidate checked
   * again there, so an index entry not yet removed never shows an entry that is not low.
   */
  lowStock?: true;
  /** Items each index Query reads at most (default {@link maxQueryItems}). */
  queryLimit?: number;
}

/** Items one index Query reads at most in a full list: two pages per shard stay a few MB of objects. */
export const maxQueryItems = 1000;
/** Items of each shard's first Query: small, so the first bytes of a list go out after a short read. */
const firstQueryItems = 250;
/** Entries the merge hands out at most in one batch. */
const batchItems = 500;

/** One shard's entries in petId order, page by page, the next page requested as soon as one arrives. */
async function* shardPages(
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: number,
  options: ListOptions,
  abortSignal: AbortSignal,
): AsyncGenerator<InventoryItem[]> {
  const { after, status, lowStock, queryLimit = maxQueryItems } = options;
  const index = lowStock ? lowStockIndex : listIndex;
  const filters = [
    ...(status ? ['#status = :status'] : []),
    ...(lowStock ? ['quantity <= reorderPoint'] : []),
  ];
  const query = (start: Record<string, unknown> | undefined, limit = queryLimit) => {
    const sent = client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.name,
        KeyConditionExpression: `#shard = :shard${after === undefined ? '' : ' AND petId > :after'}`,
        ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
        ProjectionExpression: 'petId, quantity, #status, reorderPoint',
        ExpressionAttributeNames: { '#shard': index.shardAttribute, '#status': 'status' },
        ExpressionAttributeValues: {
          ':shard': shard,
          ...(after !== undefined && { ':after': NumberValue.from(after) }),
          ...(status && { ':status': status }),
        },
        Limit: limit,
        ExclusiveStartKey: start,
      }),
      { abortSignal },
    );
    // Marked handled: a prefetch that fails while the consumer is busy elsewhere rejects when awaited.
    sent.catch(() => {});
    return sent;
  };
  let pending: Promise<QueryCommandOutput> | undefined = query(
    undefined,
    Math.min(queryLimit, firstQueryItems),
  );
  while (pending) {
    const page: QueryCommandOutput = await pending;
    pending = page.LastEvaluatedKey ? query(page.LastEvaluatedKey) : undefined;
    yield (page.Items ?? []).map(fromStoredItem);
  }
}

/** A shard's current page and position in it during the merge. */
interface ShardHead {
  pages: AsyncGenerator<InventoryItem[]>;
  items: InventoryItem[];
  index: number;
}

/** Reads `head`'s next non-empty page; false when the shard is exhausted. */
async function refill(head: ShardHead): Promise<boolean> {
  for (;;) {
    const next = await head.pages.next();
    if (next.done) return false;
    if (next.value.length > 0) {
      head.items = next.value;
      head.index = 0;
      return true;
    }
  }
}

/**
 * The k-way merge of the shards' pages in petId order. The first shard is read alone first, so a database
 * that is down costs one request's attempts, as for any other operation; the other shards then start together.
 */
async function* merge(heads: ShardHead[]): AsyncGenerator<InventoryItem[]> {
  const [probe, ...others] = heads as [ShardHead, ...ShardHead[]];
  const started = [await refill(probe), ...(await Promise.all(others.map(refill)))];
  const live = heads.filter((_, shard) => started[shard]);
  let batch: InventoryItem[] = [];
  while (live.length > 0) {
    let least = 0;
    for (let i = 1; i < live.length; i++) {
      const candidate = live[i] as ShardHead;
      const best = live[least] as ShardHead;
      const order = comparePetIds(
        (candidate.items[candidate.index] as InventoryItem).petId,
        (best.items[best.index] as InventoryItem).petId,
      );
      if (order < 0) least = i;
    }
    const head = live[least] as ShardHead;
    batch.push(head.items[head.index] as InventoryItem);
    head.index++;
    if (head.index === head.items.length) {
      yield batch;
      batch = [];
      if (!(await refill(head))) live.splice(least, 1);
    } else if (batch.length === batchItems) {
      yield batch;
      batch = [];
    }
  }
}

/**
 * The entries of the inventory table `tableName` in petId order, in batches: a merge of one paginated Query
 * per shard of the list index, each prefetching its next page, so memory holds at most two pages per shard
 * whatever the table's size. Every Query still running or prefetched stops once the consumer stops, early
 * or on a failure.
 */
export async function* listSorted(
  client: DynamoDBDocumentClient,
  tableName: string,
  options: ListOptions = {},
): AsyncGenerator<InventoryItem[]> {
  const abort = new AbortController();
  const heads: ShardHead[] = Array.from({ length: listIndex.shards }, (_, shard) => ({
    pages: shardPages(client, tableName, shard, options, abort.signal),
    items: [],
    index: 0,
  }));
  try {
    yield* merge(heads);
  } finally {
    abort.abort();
  }
}
