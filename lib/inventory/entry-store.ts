/**
 * The single-item reads and writes of the inventory table, one DynamoDB request each (getInventoryItem,
 * updateInventory): docs/contract.md "Inventory semantics", docs/architecture.md "Data layout".
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, NumberValue, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { listIndex } from '../tables.ts';
import type { IfMatch } from './entity-tag.ts';
import type { InventoryItem } from './inventory-item.ts';
import type { InventoryUpdate } from './inventory-update.ts';
import { type LastChange, lastChangeUpdate, newRequestToken, requestTokenOf } from './last-change.ts';
import { listShardOf } from './list-shard.ts';
import { fromStoredItem } from './stored-item.ts';

/** A change updateInventory makes: the values to set, why, and the API key's id when known. */
export type EntryChange = InventoryUpdate & Pick<LastChange, 'keyId'>;
/** The outcome of {@link updateEntry}: the updated entry, or why nothing changed. */
export type UpdateResult = InventoryItem | 'not_found' | 'precondition_failed';

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
 * The condition of a conditional quantity update: the entry exists, the request's own earlier attempt is not
 * already on it (its `requestToken`, lib/inventory/last-change.ts) and, with `ifMatch` listing tags, its
 * stored quantity and status are those of one of them (a list naming no state can never hold).
 */
function updateCondition(ifMatch: IfMatch | undefined): {
  expression: string;
  values: Record<string, unknown>;
  names: Record<string, string>;
} {
  const values: Record<string, unknown> = {};
  // `#lc_requestToken` and `:lc_requestToken` are lastChangeUpdate's placeholders.
  const entry =
    'attribute_exists(petId) AND (attribute_not_exists(#lc_requestToken) OR #lc_requestToken <> :lc_requestToken)';
  if (!ifMatch || ifMatch.any) return { expression: entry, values, names: {} };
  if (ifMatch.states.length === 0) {
    // No state can match: `quantity < 0` never holds, and the failure still returns the item (412, not 404).
    return { expression: `${entry} AND quantity < :none`, values: { ':none': 0 }, names: {} };
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
 * Sets the quantity, the status, the reorder point (or removes it: `null`) (and the list shard) of the existing entry of `petId`, with the
 * change's reason, key id and a request token chosen once per call, in one conditional UpdateItem, never
 * creating one. A failed condition returns the stored item (`ALL_OLD`): none is `not_found`; one carrying this
 * call's token is its own earlier attempt, committed before the SDK sent it again (docs/architecture.md
 * "Writes exactly once"), answered as applied; any other is `precondition_failed`.
 */
export async function updateEntry(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
  { quantity, status, reorderPoint, reason, keyId }: EntryChange,
  ifMatch?: IfMatch,
): Promise<UpdateResult> {
  const condition = updateCondition(ifMatch);
  const requestToken = newRequestToken();
  const change = lastChangeUpdate({ reason, ...(keyId === undefined ? {} : { keyId }), requestToken });
  const set = [
    ...(quantity === undefined ? [] : ['quantity = :quantity']),
    ...(status === undefined ? [] : ['#newStatus = :status']),
    ...(typeof reorderPoint === 'number' ? ['reorderPoint = :reorderPoint'] : []),
    '#shard = :shard',
    ...change.set,
  ];
  const removed = [...change.remove, ...(reorderPoint === null ? ['reorderPoint'] : [])];
  const remove = removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : '';
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
          ...(typeof reorderPoint === 'number' ? { ':reorderPoint': reorderPoint } : {}),
          ':shard': listShardOf(petId),
          ...change.values,
          ...condition.values,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return fromStoredItem(Attributes ?? {});
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (!error.Item) return 'not_found';
    // The request's own earlier attempt: numbers read as NumberValue, as the document client reads them.
    if (requestTokenOf(error.Item) === requestToken) {
      return fromStoredItem(unmarshall(error.Item, { wrapNumbers: true }));
    }
    return 'precondition_failed';
  }
}
