/**
 * Inventory entries by petId with BatchGetItem (listInventory's `petIds`, Square's BatchRetrieveInventoryCounts;
 * the batch's read): docs/contract.md "Inventory semantics".
 */
import { BatchGetCommand, type DynamoDBDocumentClient, NumberValue } from '@aws-sdk/lib-dynamodb';
import { HttpError } from '../http/errors.ts';
import { type RetryPolicy, retried, TryAgain } from '../retry.ts';
import { type Projection, projection } from './entry-store.ts';
import type { InventoryItem } from './inventory-item.ts';
import { comparePetIds } from './pet-id.ts';
import { fromStoredItem } from './stored-item.ts';

/** The most keys one BatchGetItem takes (DynamoDB's limit), and so the most ids one request may name. */
export const maxBatchKeys = 100;
/** Rounds of BatchGetItem for the keys DynamoDB left unprocessed before the read gives up (503), with pauses. */
const readRetries: RetryPolicy = { attempts: 5, minPauseMs: 10, maxPauseMs: 400 };
/** The attributes of an InventoryItem. */
const itemProjection = projection(['petId', 'quantity', 'status', 'reorderPoint']);

/**
 * The stored items of `petIds` (at most {@link maxBatchKeys}, distinct, canonical decimal) that exist, with only
 * the attributes of `projected`, in no order, by strongly consistent BatchGetItem; the keys DynamoDB leaves
 * unprocessed are asked again after a jittered pause ({@link readRetries}).
 * @throws HttpError 503 `service_unavailable` when keys are still unprocessed after the last round
 */
export async function batchGetEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  petIds: readonly string[],
  projected: Projection,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let keys: Record<string, unknown>[] = petIds.map((petId) => ({ petId: NumberValue.from(petId) }));
  await retried(
    readRetries,
    async () => {
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true, ...projected } },
        }),
      );
      items.push(...(Responses?.[tableName] ?? []));
      keys = (UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
      if (keys.length > 0) throw new TryAgain();
    },
    () => new HttpError('service_unavailable', 'the inventory is busy; retry'),
  );
  return items;
}

/**
 * The entries of `petIds` that exist, sorted by petId ({@link batchGetEntries}).
 * @throws HttpError 503 `service_unavailable` when keys are still unprocessed after the last round
 */
export async function getEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  petIds: readonly string[],
): Promise<InventoryItem[]> {
  const items = await batchGetEntries(client, tableName, petIds, itemProjection);
  return items.map(fromStoredItem).sort((a, b) => comparePetIds(a.petId, b.petId));
}
