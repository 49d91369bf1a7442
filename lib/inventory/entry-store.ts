/**
 * The single-item reads and writes of the inventory table (getInventoryItem: one GetItem; updateInventory: one
 * one-action transaction, then one GetItem): docs/contract.md "Inventory semantics", docs/architecture.md "Data layout".
 */
import { type DynamoDBDocumentClient, GetCommand, NumberValue } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { writeOnce } from '../clients/single-write.ts';
import { type ClaimedWrite, claimPut, heldClaim, requestDigest } from '../idempotency/claim.ts';
import type { Refusal } from '../idempotency/idempotency-key.ts';
import { listIndex } from '../tables.ts';
import { adjustmentCondition, adjustmentRefusal } from './adjustment.ts';
import { type IfMatch, meetsIfMatch } from './entity-tag.ts';
import type { InventoryItem } from './inventory-item.ts';
import type { InventoryUpdate } from './inventory-update.ts';
import { type LastChange, lastChangeUpdate } from './last-change.ts';
import { listShardOf } from './list-shard.ts';
import { fromStoredItem } from './stored-item.ts';

/** A change updateInventory makes: the values to set, why, and the API key's id when known. */
export type EntryChange = InventoryUpdate & Pick<LastChange, 'keyId'>;
/**
 * The outcome of {@link updateEntry}: the updated entry, or why nothing changed (`key_reused`: the key's claim
 * holds another update).
 */
export type UpdateResult = InventoryItem | 'not_found' | 'precondition_failed' | 'key_reused' | Refusal;

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
const entryProjection = projection(['petId', 'quantity', 'status', 'reorderPoint']);

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

/** The entry of `petId` with one strongly consistent GetItem, or undefined when there is none. */
export async function getInventoryItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
): Promise<InventoryItem | undefined> {
  const item = await getEntry(client, tableName, petId, entryProjection);
  return item && fromStoredItem(item);
}

/**
 * The condition of a conditional quantity update: the entry exists, an adjustment `adjustBy` keeps its quantity
 * within 0..2147483647, and, with `ifMatch` listing tags, its stored quantity and status are those of one of
 * them (a list naming no state can never hold).
 */
function updateCondition(
  ifMatch: IfMatch | undefined,
  adjustBy: number | undefined,
): {
  expression: string;
  values: Record<string, unknown>;
  names: Record<string, string>;
} {
  const range = adjustBy === undefined ? undefined : adjustmentCondition(adjustBy);
  const values: Record<string, unknown> = { ...range?.values };
  const entry = range ? `attribute_exists(petId) AND ${range.expression}` : 'attribute_exists(petId)';
  if (!ifMatch || ifMatch.any) return { expression: entry, values, names: {} };
  if (ifMatch.states.length === 0) {
    // No state can match: `quantity < 0` never holds, and the failure still returns the item (412, not 404).
    return { expression: `${entry} AND quantity < :none`, values: { ...values, ':none': 0 }, names: {} };
  }
  const alternatives = ifMatch.states.map(({ quantity, status }, index) => {
    values[`:q${index}`] = quantity;
    values[`:s${index}`] = status;
    return `quantity = :q${index} AND #status = :s${index}`;
  });
  // AND binds tighter than OR; DynamoDB refuses redundant parentheses.
  const states = alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(' OR ')})`;
  return { expression: `${entry} AND ${states}`, values, names: { '#status': 'status' } };
}

/**
 * Sets the quantity (or adds `adjustBy` to it), the status and the reorder point (`null` removes it), and the list shard, of the existing
 * entry of `petId`, with the change's reason and key id, in one conditional write committed once (lib/clients/single-write.ts: a
 * one-action TransactWriteItems, so the SDK's retry of a write that committed is not applied again), never
 * creating one; then reads the entry (one strongly consistent GetItem) and returns it: the change, or a later
 * writer's state when another came in between (docs/contract.md "Inventory semantics"). A failed condition
 * with no stored item is `not_found`, with one that If-Match refuses `precondition_failed`, else (an adjustment
 * leaving 0..2147483647) the 409 `insufficient_stock` or `quantity_out_of_range` (docs/architecture.md "Writes
 * exactly once"). With `keyed`, the Idempotency-Key's claim goes first in the transaction: its refusal means the
 * key's own update committed before (answered with the entry as it now is), or `key_reused`.
 */
export async function updateEntry(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
  { quantity, adjustBy, status, reorderPoint, reason, keyId }: EntryChange,
  ifMatch?: IfMatch,
  keyed?: ClaimedWrite,
): Promise<UpdateResult> {
  const condition = updateCondition(ifMatch, adjustBy);
  const change = lastChangeUpdate({ reason, ...(keyId === undefined ? {} : { keyId }) });
  const set = [
    ...(quantity === undefined ? [] : ['quantity = :quantity']),
    ...(adjustBy === undefined ? [] : ['quantity = quantity + :adjustBy']),
    ...(status === undefined ? [] : ['#newStatus = :status']),
    ...(typeof reorderPoint === 'number' ? ['reorderPoint = :reorderPoint'] : []),
    '#shard = :shard',
    ...change.set,
  ];
  const removed = [...change.remove, ...(reorderPoint === null ? ['reorderPoint'] : [])];
  const remove = removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : '';
  const refusal = await writeOnce(
    client,
    {
      Update: {
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
          ...(adjustBy === undefined ? {} : { ':adjustBy': adjustBy }),
          ...(status === undefined ? {} : { ':status': status }),
          ...(typeof reorderPoint === 'number' ? { ':reorderPoint': reorderPoint } : {}),
          ':shard': listShardOf(petId),
          ...change.values,
          ...condition.values,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    keyed && { Put: claimPut(keyed.tableName, keyed.claim, requestDigest, {}, Date.now()) },
  );
  // A claim of the same update: the key's own write committed before (its function died before answering).
  if (refusal?.byClaim) {
    if (heldClaim(refusal.item, (keyed as ClaimedWrite).claim, requestDigest) === 'key_reused')
      return 'key_reused';
  } else if (refusal) {
    if (!refusal.item) return 'not_found';
    const stored = fromStoredItem(unmarshall(refusal.item, { wrapNumbers: true }));
    // Refused with If-Match met: the adjustment's range (the only other condition) refused it.
    if (adjustBy === undefined || (ifMatch && !meetsIfMatch(ifMatch, stored))) return 'precondition_failed';
    return adjustmentRefusal(petId, stored.quantity, adjustBy);
  }
  // Entries are never deleted: the committed entry is there.
  return (await getInventoryItem(client, tableName, petId)) ?? 'not_found';
}
