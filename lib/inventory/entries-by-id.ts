/**
 * Inventory entries by petId with BatchGetItem (listInventory's `petIds`, Square's BatchRetrieveInventoryCounts):
 * docs/contract.md "Inventory semantics".
 */
import { randomInt } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { BatchGetCommand, type DynamoDBDocumentClient, NumberValue } from '@aws-sdk/lib-dynamodb';
import { HttpError } from '../http/errors.ts';
import type { InventoryItem } from './inventory-item.ts';
import { comparePetIds } from './pet-id.ts';
import { fromStoredItem } from './stored-item.ts';

/** The most keys one BatchGetItem takes (DynamoDB's limit), and so the most ids one request may name. */
export const maxBatchKeys = 100;
/** Rounds of BatchGetItem for the keys DynamoDB left unprocessed before the read gives up (503). */
const readRounds = 5;

/**
 * The entries of `petIds` (at most {@link maxBatchKeys}, distinct, canonical decimal) that exist, sorted by
 * petId, with one strongly consistent BatchGetItem; the keys DynamoDB leaves unprocessed are asked again after a
 * pause with jitter (10 to 50 ms times the round), {@link readRounds} rounds in all.
 * @throws HttpError 503 `service_unavailable` when keys are still unprocessed after the last round
 */
export async function getEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  petIds: readonly string[],
): Promise<InventoryItem[]> {
  const items: InventoryItem[] = [];
  let keys: Record<string, unknown>[] = petIds.map((petId) => ({ petId: NumberValue.from(petId) }));
  for (let round = 1; keys.length > 0; round++) {
    if (round > readRounds) throw new HttpError('service_unavailable', 'the inventory is busy; retry');
    if (round > 1) await setTimeout(randomInt(10, 50) * round);
    const { Responses, UnprocessedKeys } = await client.send(
      new BatchGetCommand({
        RequestItems: {
          [tableName]: {
            Keys: keys,
            ConsistentRead: true,
            ProjectionExpression: 'petId, quantity, #status, reorderPoint',
            ExpressionAttributeNames: { '#status': 'status' },
          },
        },
      }),
    );
    items.push(...(Responses?.[tableName] ?? []).map(fromStoredItem));
    keys = (UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
  }
  return items.sort((a, b) => comparePetIds(a.petId, b.petId));
}
