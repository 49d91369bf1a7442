/**
 * batchUpdateInventory's write: every change of a batch in one TransactWriteItems, all or nothing
 * (docs/contract.md "Inventory semantics"; docs/implementation.md "Inventory batches").
 */
import { createHash, randomInt } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  NumberValue,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { HttpError } from '../http/errors.ts';
import { listIndex } from '../tables.ts';
import type { BatchChange } from './batch-changes.ts';
import { entityTag, type IfMatch } from './entity-tag.ts';
import { type InventoryItem, inventoryJson } from './inventory-item.ts';
import { type LastChange, lastChangeUpdate, newRequestToken } from './last-change.ts';
import { listShardOf } from './list-shard.ts';
import { fromStoredItem } from './stored-item.ts';

/** What the batch writes beside its values: the API key's id and the request's token. */
export type BatchOrigin = Pick<LastChange, 'keyId'> & { requestToken: string };

/** The entries after the batch, in the request's order. */
export interface BatchItems {
  items: InventoryItem[];
}

/** Why nothing changed: the first failing element's index and what failed there. */
export interface BatchRefusal {
  index: number;
  refusal: 'not_found' | 'precondition_failed';
}

/** An entry as read before the transaction: its values and the token of the request that last wrote it. */
type ReadEntry = InventoryItem & { requestToken?: string };

/** Transactions tried per batch: an entry changed between the read and the transaction is read again. */
const batchAttempts = 5;
/** Rounds of BatchGetItem for the keys DynamoDB left unprocessed before the batch gives up (503). */
const readRounds = 5;

/**
 * The token of a batch's writes (`requestToken`, lib/inventory/last-change.ts): random per request without an
 * Idempotency-Key; with one, a name-based UUID (version 8 from SHA-256, RFC 9562 §5.8 and Appendix B.2) of the
 * scoped key and the changes, so that a repeat of a batch that committed before its function died finds its
 * own writes (docs/architecture.md "Writes exactly once").
 */
export function batchRequestToken(changes: readonly BatchChange[], scopedKey?: string): string {
  if (scopedKey === undefined) return newRequestToken();
  const hash = createHash('sha256')
    .update(`${scopedKey}\n${JSON.stringify(changes)}`, 'utf8')
    .digest('hex');
  const variant = ((Number.parseInt(hash[16] as string, 16) & 0x3) | 0x8).toString(16);
  const hex = `${hash.slice(0, 12)}8${hash.slice(13, 16)}${variant}${hash.slice(17, 32)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** True when `entry` meets the element's precondition, or carries the batch's own earlier write. */
function meets(ifMatch: IfMatch | undefined, entry: ReadEntry, requestToken: string): boolean {
  if (!ifMatch || ifMatch.any || entry.requestToken === requestToken) return true;
  return ifMatch.states.some(
    ({ quantity, status }) => quantity === entry.quantity && status === entry.status,
  );
}

/** The entry of a stored item read raw (a cancellation reason's `ALL_OLD`), or undefined when there is none. */
function rawEntry(item: Record<string, AttributeValue> | undefined): ReadEntry | undefined {
  if (item === undefined) return undefined;
  const { requestToken } = item;
  return { ...fromStoredItem(unmarshall(item, { wrapNumbers: true })), requestToken: requestToken?.S };
}

/**
 * The entries of `changes` with strongly consistent BatchGetItem requests (at most 100 keys each: the batch's
 * limit), by petId.
 * @throws HttpError 503 when DynamoDB leaves keys unprocessed {@link readRounds} times
 */
async function readEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  changes: readonly BatchChange[],
): Promise<Map<string, ReadEntry>> {
  const entries = new Map<string, ReadEntry>();
  let keys: Record<string, unknown>[] = changes.map(({ petId }) => ({ petId: NumberValue.from(petId) }));
  for (let round = 1; keys.length > 0; round++) {
    if (round > readRounds) throw new HttpError('service_unavailable', 'the inventory is busy; retry');
    if (round > 1) await setTimeout(randomInt(10, 50) * round);
    const { Responses, UnprocessedKeys } = await client.send(
      new BatchGetCommand({
        RequestItems: {
          [tableName]: {
            Keys: keys,
            ConsistentRead: true,
            ProjectionExpression: 'petId, quantity, #status, reorderPoint, requestToken',
            ExpressionAttributeNames: { '#status': 'status' },
          },
        },
      }),
    );
    for (const item of Responses?.[tableName] ?? []) {
      const entry = fromStoredItem(item);
      const { requestToken } = item as { requestToken?: string };
      entries.set(entry.petId, { ...entry, ...(requestToken === undefined ? {} : { requestToken }) });
    }
    keys = (UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
  }
  return entries;
}

/**
 * The transaction's Update of one entry from `read` to `next`, conditioned on `read`'s values; the reorder point
 * is set or removed (`null`) only when the change gives one.
 */
function entryUpdate(
  tableName: string,
  read: InventoryItem,
  next: InventoryItem,
  change: LastChange,
  reorderPoint: number | null | undefined,
) {
  const last = lastChangeUpdate(change);
  const point = typeof reorderPoint === 'number' ? ['reorderPoint = :reorderPoint'] : [];
  const removed = [...last.remove, ...(reorderPoint === null ? ['reorderPoint'] : [])];
  const remove = removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : '';
  return {
    Update: {
      TableName: tableName,
      Key: { petId: NumberValue.from(read.petId) },
      UpdateExpression: `SET ${['quantity = :quantity', '#status = :status', ...point, '#shard = :shard', ...last.set].join(', ')}${remove}`,
      ConditionExpression: 'attribute_exists(petId) AND quantity = :read_quantity AND #status = :read_status',
      ExpressionAttributeNames: { '#status': 'status', '#shard': listIndex.shardAttribute, ...last.names },
      ExpressionAttributeValues: {
        ':quantity': next.quantity,
        ':status': next.status,
        ...(typeof reorderPoint === 'number' ? { ':reorderPoint': reorderPoint } : {}),
        ':shard': listShardOf(read.petId),
        ':read_quantity': read.quantity,
        ':read_status': read.status,
        ...last.values,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

/** The `reorderPoint` member of an entry after a change: `given` when set, none when cleared, else `read`. */
function pointAfter(given: number | null | undefined, read: number | undefined): { reorderPoint?: number } {
  const point = given === undefined ? read : given;
  return point === null || point === undefined ? {} : { reorderPoint: point };
}

/** The first element the read entries refuse: no entry (404) or a precondition not met (412). */
function firstRefusal(
  changes: readonly BatchChange[],
  entries: ReadonlyMap<string, ReadEntry>,
  requestToken: string,
): BatchRefusal | undefined {
  for (const [index, { petId, ifMatch }] of changes.entries()) {
    const entry = entries.get(petId);
    if (!entry) return { index, refusal: 'not_found' };
    if (!meets(ifMatch, entry, requestToken)) return { index, refusal: 'precondition_failed' };
  }
  return undefined;
}

/**
 * Why the transaction was cancelled (its reasons, one per action in request order): the first element whose
 * condition failed on a missing entry (404) or on one its precondition refuses (412); `retry` when it failed on
 * an entry that another writer changed since the read, or met another transaction (`TransactionConflict`).
 * @throws the error itself for any other cancellation
 */
function cancellation(
  error: TransactionCanceledException,
  changes: readonly BatchChange[],
  requestToken: string,
): BatchRefusal | 'retry' {
  const reasons = error.CancellationReasons ?? [];
  for (const [index, reason] of reasons.entries()) {
    if (reason?.Code !== 'ConditionalCheckFailed') continue;
    const entry = rawEntry(reason.Item);
    if (!entry) return { index, refusal: 'not_found' };
    if (!meets(changes[index]?.ifMatch, entry, requestToken))
      return { index, refusal: 'precondition_failed' };
    return 'retry';
  }
  if (reasons.some((reason) => reason?.Code === 'TransactionConflict')) return 'retry';
  throw error;
}

/**
 * The batch writer over `client` and the inventory table `tableName`: reads the entries (BatchGetItem), refuses
 * at the first element without an entry or whose `ifMatch` the entry does not meet (an entry carrying the
 * request's own token meets it), else sets every entry's `quantity` and `status` (given, or as read) with its
 * last change (`reason` as given, the API key's id, the token) in one TransactWriteItems conditioned on the
 * values read, so the answer is exactly the entries as written. An entry changed between the read and the
 * transaction cancels it, and the batch is read and decided again, {@link batchAttempts} times in all, then
 * 503 `service_unavailable`. The SDK's own retry of the transaction carries its `ClientRequestToken`, so a
 * transaction that committed and answered late is not applied, nor refused, again.
 */
export function batchUpdate(
  client: DynamoDBDocumentClient,
  tableName: string,
): (changes: readonly BatchChange[], origin: BatchOrigin) => Promise<BatchItems | BatchRefusal> {
  return async (changes, { keyId, requestToken }) => {
    for (let attempt = 1; ; attempt++) {
      const entries = await readEntries(client, tableName, changes);
      const refused = firstRefusal(changes, entries, requestToken);
      if (refused) return refused;
      const items: InventoryItem[] = [];
      const actions = changes.map(({ petId, update }) => {
        const read = entries.get(petId) as ReadEntry;
        const next = {
          petId,
          quantity: update.quantity ?? read.quantity,
          status: update.status ?? read.status,
          ...pointAfter(update.reorderPoint, read.reorderPoint),
        };
        items.push(next);
        const change = { reason: update.reason, ...(keyId === undefined ? {} : { keyId }), requestToken };
        return entryUpdate(tableName, read, next, change, update.reorderPoint);
      });
      try {
        await client.send(new TransactWriteCommand({ TransactItems: actions }));
        return { items };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const outcome = cancellation(error, changes, requestToken);
        if (outcome !== 'retry') return outcome;
        if (attempt === batchAttempts) {
          throw new HttpError('service_unavailable', 'these pets are being changed by others; retry');
        }
        await setTimeout(randomInt(10, 50) * attempt);
      }
    }
  };
}

/**
 * The exact JSON text of the batch's answer, `{"items": [...]}`: each InventoryItem (lib/inventory/inventory-item.ts,
 * petId digit for digit) with its strong ETag as the member `etag`, the `ETag` header's value (quotes included).
 */
export function batchItemsJson({ items }: BatchItems): string {
  const members = items.map(
    (item) => `${inventoryJson(item).slice(0, -1)},"etag":${JSON.stringify(entityTag(item))}}`,
  );
  return `{"items":[${members.join(',')}]}`;
}
