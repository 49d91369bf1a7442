/** The inventory store, one DynamoDB request per operation: docs/architecture.md "Data layout". */

import { setTimeout } from 'node:timers/promises';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
  GetCommand,
  NumberValue,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { listIndex } from '../tables.ts';
import type { IfMatch } from './entity-tag.ts';
import type { InventoryItem, PetStatus } from './inventory-item.ts';
import type { InventoryUpdate } from './inventory-update.ts';
import { type LastChange, lastChangeUpdate } from './last-change.ts';
import { listShardOf } from './list-index.ts';
import { type PetDetails, storedPetDetails } from './pet-details.ts';
import { comparePetIds } from './pet-id.ts';

/** What a sorted read of the inventory takes (docs/contract.md "Inventory semantics"). */
export interface ListOptions {
  /** Only entries with a petId above this one (a page's cursor position). */
  after?: string;
  /** Only entries of this status. */
  status?: PetStatus;
  /** Items each index Query reads at most (default {@link maxQueryItems}). */
  queryLimit?: number;
}

/** What the handlers and the import tool need from the inventory table. */
export interface InventoryStore {
  /**
   * The entries in petId order, in batches: a merge of one paginated Query per shard of the list index, each
   * prefetching its next page, so memory holds at most two pages per shard whatever the table's size.
   */
  listSorted(options?: ListOptions): AsyncGenerator<InventoryItem[]>;
  /** One entry with a strongly consistent GetItem, or undefined when there is none. */
  get(petId: string): Promise<InventoryItem | undefined>;
  /**
   * Sets the quantity, the status or both (and the list shard) of an existing entry, with the change's reason
   * and key id, in one conditional UpdateItem, never creating one; the old item of a failed condition
   * (`ALL_OLD`) tells `not_found` from `precondition_failed`.
   */
  update(petId: string, change: EntryChange, ifMatch?: IfMatch): Promise<UpdateResult>;
  /**
   * Writes entries (create or replace: a rerun converges) with their pet details (none: stored ones go), in
   * BatchWriteItem requests of 25, resending unprocessed items, {@link maxBatchAttempts} times per request.
   * @throws IncompleteWriteError (saying how many of `items` were written) when DynamoDB still fails.
   */
  putMany(items: readonly (InventoryItem & { details?: PetDetails })[]): Promise<void>;
}

/** Items one index Query reads at most in a full list: two pages per shard stay a few MB of objects. */
export const maxQueryItems = 1000;
/** A change updateInventory makes: the values to set, why, and the API key's id when known. */
export type EntryChange = InventoryUpdate & Pick<LastChange, 'keyId'>;
/** The outcome of {@link InventoryStore.update}: the updated entry, or why nothing changed. */
export type UpdateResult = InventoryItem | 'not_found' | 'precondition_failed';
/** Items of each shard's first Query: small, so the first bytes of a list go out after a short read. */
export const firstQueryItems = 250;
/** Entries the merge hands out at most in one batch. */
const batchItems = 500;

/**
 * {@link InventoryStore.putMany} stopped before writing every entry: `written` of them were written (every
 * entry of the earlier requests and the processed ones of the failing request), `cause` is why.
 */
export class IncompleteWriteError extends Error {
  readonly written: number;

  constructor(written: number, reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'IncompleteWriteError';
    this.written = written;
  }
}

/** Raw item as read by the project's document clients: numbers arrive as NumberValue. */
type StoredItem = { petId: NumberValue; quantity: NumberValue; status: PetStatus };

/**
 * The condition of a conditional quantity update: the entry exists and, with `ifMatch` listing tags, its
 * stored quantity and status are those of one of them (a list naming no state can never hold).
 */
function updateCondition(ifMatch: IfMatch | undefined): {
  expression: string;
  values: Record<string, unknown>;
  /** Attribute names of a condition on the stored values (then a failure returns the item); else undefined. */
  names: Record<string, string> | undefined;
} {
  const values: Record<string, unknown> = {};
  if (!ifMatch || ifMatch.any) return { expression: 'attribute_exists(petId)', values, names: undefined };
  if (ifMatch.states.length === 0) {
    // No state can match: `quantity < 0` never holds, and the failure still returns the item (412, not 404).
    const never = 'attribute_exists(petId) AND quantity < :none';
    return { expression: never, values: { ':none': 0 }, names: {} };
  }
  const alternatives = ifMatch.states.map(({ quantity, status }, index) => {
    values[`:q${index}`] = quantity;
    values[`:s${index}`] = status;
    return `quantity = :q${index} AND #status = :s${index}`;
  });
  // AND binds tighter than OR; DynamoDB refuses redundant parentheses.
  const states = alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(' OR ')})`;
  const expression = `attribute_exists(petId) AND ${states}`;
  return { expression, values, names: { '#status': 'status' } };
}

function fromStored(item: Record<string, unknown>): InventoryItem {
  const { petId, quantity, status } = item as StoredItem;
  return { petId: petId.toString(), quantity: Number(quantity.toString()), status };
}

/** The item as written: the entry's attributes and its list shard (`list-index.ts`). */
export function storedItem({ petId, quantity, status }: InventoryItem): Record<string, unknown> {
  return { petId: NumberValue.from(petId), quantity, status, [listIndex.shardAttribute]: listShardOf(petId) };
}

/** Attributes to read, each through a placeholder (`status` and `name` are DynamoDB reserved words). */
export type Projection = { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> };

/** The {@link Projection} of `attributes`: built once per reader, not per request. */
export function projection(attributes: readonly string[]): Projection {
  return {
    ProjectionExpression: attributes.map((_, index) => `#a${index}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name])),
  };
}

/** The attributes of an InventoryItem. */
const entryProjection = projection(['petId', 'quantity', 'status']);

/**
 * The item of `petId` in the inventory table `tableName` with only the attributes of `projected`, read with one
 * strongly consistent GetItem; undefined when there is none.
 */
export async function getEntry(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
  projected: Projection,
): Promise<Record<string, unknown> | undefined> {
  const key = { petId: NumberValue.from(petId) };
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: key, ...projected, ConsistentRead: true }),
  );
  return Item;
}

/** Items per BatchWriteItem request: DynamoDB's maximum. */
const batchSize = 25;
/** BatchWriteItem requests per batch at most: the first and the resends of its unprocessed items. */
export const maxBatchAttempts = 8;
/** Delay before the first resend of unprocessed items; it doubles for each further one, up to {@link maxRetryDelayMs}. */
const retryDelayMs = 50;
/** Longest delay between two resends: with {@link maxBatchAttempts} the resends of one batch wait about 5 s in all. */
const maxRetryDelayMs = 2000;

/** One shard's entries in petId order, page by page, the next page requested as soon as one arrives. */
async function* shardPages(
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: number,
  options: ListOptions,
  abortSignal: AbortSignal,
): AsyncGenerator<InventoryItem[]> {
  const { after, status, queryLimit = maxQueryItems } = options;
  const query = (start: Record<string, unknown> | undefined, limit = queryLimit) => {
    const sent = client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: listIndex.name,
        KeyConditionExpression: `#shard = :shard${after === undefined ? '' : ' AND petId > :after'}`,
        ...(status && { FilterExpression: '#status = :status' }),
        ProjectionExpression: 'petId, quantity, #status',
        ExpressionAttributeNames: { '#shard': listIndex.shardAttribute, '#status': 'status' },
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
    yield (page.Items ?? []).map(fromStored);
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

/** The store over `client` and the table `tableName`. */
export function inventoryStore(client: DynamoDBDocumentClient, tableName: string): InventoryStore {
  return {
    async *listSorted(options = {}) {
      // Stops every Query still running or prefetched once the consumer stops, early or on a failure.
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
    },

    async get(petId) {
      const item = await getEntry(client, tableName, petId, entryProjection);
      return item && fromStored(item);
    },

    async update(petId, { quantity, status, reason, keyId }, ifMatch) {
      const condition = updateCondition(ifMatch);
      const change = lastChangeUpdate({ reason, ...(keyId === undefined ? {} : { keyId }) });
      const set = [
        ...(quantity === undefined ? [] : ['quantity = :quantity']),
        ...(status === undefined ? [] : ['#newStatus = :status']),
        '#shard = :shard',
        ...change.set,
      ];
      const remove = change.remove.length > 0 ? ` REMOVE ${change.remove.join(', ')}` : '';
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { petId: NumberValue.from(petId) },
            UpdateExpression: `SET ${set.join(', ')}${remove}`,
            ConditionExpression: condition.expression,
            ExpressionAttributeNames: {
              '#shard': listIndex.shardAttribute,
              ...(status === undefined ? {} : { '#newStatus': 'status' }),
              ...change.names,
              ...condition.names,
            },
            ExpressionAttributeValues: {
              ...(quantity === undefined ? {} : { ':quantity': quantity }),
              ...(status === undefined ? {} : { ':status': status }),
              ':shard': listShardOf(petId),
              ...change.values,
              ...condition.values,
            },
            ReturnValues: 'ALL_NEW',
            // Only a condition on the stored values can fail with the item present (412 rather than 404).
            ...(condition.names ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
          }),
        );
        return fromStored(Attributes ?? {});
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) {
          return error.Item ? 'precondition_failed' : 'not_found';
        }
        throw error;
      }
    },

    async putMany(items) {
      let written = 0;
      for (let start = 0; start < items.length; start += batchSize) {
        let requests: Record<string, unknown>[] = items
          .slice(start, start + batchSize)
          .map(({ petId, quantity, status, details }) => ({
            PutRequest: {
              Item: {
                ...storedItem({ petId, quantity, status }),
                ...(details === undefined ? {} : storedPetDetails(details)),
              },
            },
          }));
        for (let attempt = 1; requests.length > 0; attempt++) {
          if (attempt > maxBatchAttempts) {
            throw new IncompleteWriteError(
              written,
              `DynamoDB left ${requests.length} item(s) unprocessed after ${maxBatchAttempts} attempts (throttled)`,
            );
          }
          if (attempt > 1) await setTimeout(Math.min(retryDelayMs * 2 ** (attempt - 2), maxRetryDelayMs));
          let result: BatchWriteCommandOutput;
          try {
            result = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
          } catch (error) {
            const { name, message } = error as Error;
            throw new IncompleteWriteError(written, `DynamoDB failed: ${name}: ${message}`, { cause: error });
          }
          const unprocessed = result.UnprocessedItems?.[tableName] ?? [];
          written += requests.length - unprocessed.length;
          requests = unprocessed;
        }
      }
    },
  };
}
