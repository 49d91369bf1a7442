/**
 * batchUpdateInventory's write: every change of a batch in one TransactWriteItems, all or nothing
 * (docs/contract.md "Inventory semantics"; docs/implementation.md "Inventory batches").
 */
import { createHash } from 'node:crypto';
import {
  type AttributeValue,
  type CancellationReason,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  NumberValue,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { HttpError } from '../http/errors.ts';
import { claimPut, heldClaim, type KeyClaim, keyClaim } from '../idempotency/claim.ts';
import type { Refusal } from '../idempotency/idempotency-key.ts';
import { type RetryPolicy, retried, TryAgain } from '../retry.ts';
import { listIndex } from '../tables.ts';
import { adjustable, adjustmentRefusal } from './adjustment.ts';
import type { BatchChange } from './batch-changes.ts';
import { entityTag, type IfMatch, meetsIfMatch } from './entity-tag.ts';
import { batchGetEntries } from './entries-by-id.ts';
import { projection } from './entry-store.ts';
import { type InventoryItem, inventoryValue } from './inventory-item.ts';
import { type LastChange, lastChangeUpdate } from './last-change.ts';
import { listShardOf } from './list-shard.ts';
import { fromStoredItem } from './stored-item.ts';

/**
 * What the batch writes beside its values: the API key's id and, with an Idempotency-Key, the key's claim
 * ({@link batchClaim}) or, for a batch with no room for one, its token ({@link batchRequestToken}).
 */
export type BatchOrigin = Pick<LastChange, 'keyId' | 'requestToken'> & { claim?: KeyClaim };

/** The prefix of a batch claim's `id` (lib/idempotency/claim.ts): apart from the utility's records. */
const claimPrefix = 'batchUpdateInventoryClaim#';
/** The claim's attribute holding the SHA-256 hex of the batch's validated changes. */
const claimDigest = 'batchDigest';

/**
 * The most changes of a keyed batch whose transaction has room for its claim: DynamoDB takes 100 actions per
 * transaction, and the claim is one (docs/architecture.md "Writes exactly once").
 */
export const claimedBatchLimit = 99;

/**
 * The claim of the scoped Idempotency-Key `scopedKey` on the batch `changes` (lib/idempotency/claim.ts), put in
 * the batch's own transaction with the batch's answer: a repeat after the function died between the commit and
 * its answer is refused by it and answers that, whatever others wrote since.
 */
export function batchClaim(scopedKey: string, changes: readonly BatchChange[]): KeyClaim {
  return keyClaim(claimPrefix, scopedKey, JSON.stringify(changes));
}

/** An entry of the answer as a claim keeps it (document client form: petId a Number). */
function storedAnswer({ petId, quantity, status }: InventoryItem) {
  return { petId: NumberValue.from(petId), quantity, status };
}

/** The entries after the batch, in the request's order. */
export interface BatchItems {
  items: InventoryItem[];
}

/**
 * Why nothing changed: the first failing element's index and what failed there (an adjustment leaving
 * 0..2147483647: its 409, lib/inventory/adjustment.ts).
 */
export interface BatchRefusal {
  index: number;
  refusal: 'not_found' | 'precondition_failed' | Refusal;
}

/** An entry as read before the transaction: its values and the token of the request that last wrote it. */
type ReadEntry = InventoryItem & { requestToken?: string };

/**
 * Transactions tried per batch: an entry changed between the read and the transaction (order traffic, say) is
 * read again after a jittered pause, so a batch does not starve; then 503.
 */
const batchRetries: RetryPolicy = { attempts: 5, minPauseMs: 10, maxPauseMs: 400 };
/** Rounds of BatchGetItem for the keys DynamoDB left unprocessed before the batch gives up (503). */
/** What the batch reads of each entry: an InventoryItem and the batch token of a keyed batch of 100. */
const readProjection = projection(['petId', 'quantity', 'status', 'reorderPoint', 'requestToken']);

/**
 * The token of a keyed batch of more than {@link claimedBatchLimit} changes (`requestToken` on each entry it
 * writes, lib/inventory/last-change.ts): a name-based UUID
 * (version 8 from SHA-256, RFC 9562 §5.8 and Appendix B.2) of the scoped Idempotency-Key and the changes, so
 * that a repeat of a batch that committed before its function died finds its own writes (docs/architecture.md
 * "Writes exactly once"). A batch without a key needs none: the SDK's retry of its transaction carries the
 * transaction's `ClientRequestToken`.
 */
export function batchRequestToken(changes: readonly BatchChange[], scopedKey: string): string {
  const hash = createHash('sha256')
    .update(`${scopedKey}\n${JSON.stringify(changes)}`, 'utf8')
    .digest('hex');
  const variant = ((Number.parseInt(hash[16] as string, 16) & 0x3) | 0x8).toString(16);
  const hex = `${hash.slice(0, 12)}8${hash.slice(13, 16)}${variant}${hash.slice(17, 32)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** True when `entry` carries the keyed batch's own earlier write (its token `requestToken`). */
function ownWrite(entry: ReadEntry, requestToken: string | undefined): boolean {
  return requestToken !== undefined && entry.requestToken === requestToken;
}

/** True when `entry` meets the element's precondition, or carries the batch's own earlier write. */
function meets(ifMatch: IfMatch | undefined, entry: ReadEntry, requestToken: string | undefined): boolean {
  if (!ifMatch || ownWrite(entry, requestToken)) return true;
  return meetsIfMatch(ifMatch, entry);
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
 * @throws HttpError 503 when DynamoDB still leaves keys unprocessed (lib/inventory/entries-by-id.ts)
 */
async function readEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  changes: readonly BatchChange[],
): Promise<Map<string, ReadEntry>> {
  const entries = new Map<string, ReadEntry>();
  const petIds = changes.map(({ petId }) => petId);
  for (const item of await batchGetEntries(client, tableName, petIds, readProjection)) {
    const entry = fromStoredItem(item);
    const { requestToken } = item as { requestToken?: string };
    entries.set(entry.petId, { ...entry, ...(requestToken === undefined ? {} : { requestToken }) });
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

/**
 * The quantity an element's change leaves: `quantity` when given, else the read one plus `adjustBy` unless the
 * batch `committed` before (a keyed batch's repeat finding its own token: its adjustments are in the read).
 */
function quantityAfter({ update }: BatchChange, read: InventoryItem, committed: boolean): number {
  if (update.quantity !== undefined) return update.quantity;
  return update.adjustBy === undefined || committed ? read.quantity : read.quantity + update.adjustBy;
}

/**
 * The first element the read entries refuse: no entry (404), a precondition not met (412), or an adjustment
 * leaving 0..2147483647 (409).
 */
function firstRefusal(
  changes: readonly BatchChange[],
  entries: ReadonlyMap<string, ReadEntry>,
  requestToken: string | undefined,
  committed: boolean,
): BatchRefusal | undefined {
  for (const [index, change] of changes.entries()) {
    const { petId, ifMatch, update } = change;
    const entry = entries.get(petId);
    if (!entry) return { index, refusal: 'not_found' };
    if (!meets(ifMatch, entry, requestToken)) return { index, refusal: 'precondition_failed' };
    if (update.adjustBy !== undefined && !committed && !adjustable(entry.quantity, update.adjustBy))
      return { index, refusal: adjustmentRefusal(petId, entry.quantity, update.adjustBy) };
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
  reasons: readonly (CancellationReason | undefined)[],
  changes: readonly BatchChange[],
  requestToken: string | undefined,
): BatchRefusal | 'retry' {
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
 * The answer the unexpired claim of `claim`'s key holds (one strongly consistent GetItem of `claimsTable`), or
 * `'key_reused'` when it holds another batch; undefined when there is none.
 */
async function storedClaim(
  client: DynamoDBDocumentClient,
  claimsTable: string,
  claim: KeyClaim,
): Promise<BatchItems | 'key_reused' | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: claimsTable, Key: { id: claim.id }, ConsistentRead: true }),
  );
  if (!Item || Number(Item.expiration) < Date.now() / 1000) return undefined;
  return claimedItems(marshall(Item), claim);
}

/**
 * The answer a keyed batch's claim holds (`held`, the refusing claim's raw attributes), or `'key_reused'` when
 * the claim was put for another batch.
 */
function claimedItems(
  held: Record<string, AttributeValue> | undefined,
  claim: KeyClaim,
): BatchItems | 'key_reused' {
  const claimed = heldClaim(held, claim, claimDigest);
  if (claimed === 'key_reused') return claimed;
  const { items } = unmarshall(claimed, { wrapNumbers: true }) as { items: Record<string, unknown>[] };
  return { items: items.map(fromStoredItem) };
}

/**
 * The batch writer over `client`, the inventory table `tableName` and the idempotency table `claimsTable`:
 * reads the entries (BatchGetItem), refuses at the first element without an entry or whose `ifMatch` the entry
 * does not meet (an entry carrying a keyed batch's own token meets it) or whose adjustment the read quantity
 * cannot take, else sets every entry's `quantity` (given, read plus `adjustBy`, or as read) and
 * `status` (given, or as read) with its last change (`reason` as given, the API key's id, the token if any) in
 * one TransactWriteItems conditioned on the values read, so the answer is exactly the entries as written; a
 * keyed batch's claim goes first in it (`origin.claim`), and a claim of the same batch that refuses it answers
 * the answer it keeps (another batch's: `key_reused`). An entry changed between the read and the transaction
 * cancels it, and the batch is read and decided again ({@link batchRetries}), then 503
 * `service_unavailable`. The SDK's own retry of the transaction carries its `ClientRequestToken`, so a
 * transaction that committed and answered late is not applied, nor refused, again.
 */
export function batchUpdate(
  client: DynamoDBDocumentClient,
  tableName: string,
  claimsTable: string,
): (
  changes: readonly BatchChange[],
  origin: BatchOrigin,
) => Promise<BatchItems | BatchRefusal | 'key_reused'> {
  return (changes, { keyId, requestToken, claim }) =>
    retried(
      batchRetries,
      async () => {
        const entries = await readEntries(client, tableName, changes);
        // All or nothing: one entry carrying the batch's token means the batch committed before.
        const committed = [...entries.values()].some((entry) => ownWrite(entry, requestToken));
        const refused = firstRefusal(changes, entries, requestToken, committed);
        // An entry changed since the key's own batch committed: that batch's claim answers, not the entry.
        if (refused) return (claim && (await storedClaim(client, claimsTable, claim))) || refused;
        const items: InventoryItem[] = [];
        const actions = changes.map((element) => {
          const { petId, update } = element;
          const read = entries.get(petId) as ReadEntry;
          const next = {
            petId,
            quantity: quantityAfter(element, read, committed),
            status: update.status ?? read.status,
            ...pointAfter(update.reorderPoint, read.reorderPoint),
          };
          items.push(next);
          const change = {
            reason: update.reason,
            ...(keyId === undefined ? {} : { keyId }),
            ...(requestToken === undefined ? {} : { requestToken }),
          };
          return entryUpdate(tableName, read, next, change, update.reorderPoint);
        });
        // The claim goes first: its refusal is the one that counts, whatever else would refuse.
        const claimed = claim
          ? [
              {
                Put: claimPut(
                  claimsTable,
                  claim,
                  claimDigest,
                  { items: items.map(storedAnswer) },
                  Date.now(),
                ),
              },
            ]
          : [];
        try {
          await client.send(new TransactWriteCommand({ TransactItems: [...claimed, ...actions] }));
          return { items };
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
          const reasons = error.CancellationReasons ?? [];
          if (claim && reasons[0]?.Code === 'ConditionalCheckFailed')
            return claimedItems(reasons[0].Item, claim);
          const outcome = cancellation(error, reasons.slice(claimed.length), changes, requestToken);
          if (outcome === 'retry') throw new TryAgain();
          return outcome;
        }
      },
      () => new HttpError('service_unavailable', 'these pets are being changed by others; retry'),
    );
}

/**
 * The exact JSON text of the batch's answer, `{"items": [...]}`: each InventoryItem (lib/inventory/inventory-item.ts,
 * petId digit for digit) with its strong ETag as the member `etag`, the `ETag` header's value (quotes included).
 */
export function batchItemsJson({ items }: BatchItems): string {
  return JSON.stringify({ items: items.map((item) => ({ ...inventoryValue(item), etag: entityTag(item) })) });
}
