/**
 * The inventory store: the DynamoDB operations the service needs, each one request where one suffices
 * (docs/architecture.md "Principles"). Table: partition key `petId` (Number); attributes `quantity` (Number),
 * `status` (String). The client and table name are passed in, so tests and the local server point it anywhere.
 */

import { setTimeout } from 'node:timers/promises';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
  NumberValue,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { InventoryItem, PetStatus } from './inventory-item.ts';
import { comparePetIds } from './pet-id.ts';

/** What the handlers and the import tool need from the inventory table. */
export interface InventoryStore {
  /** Every entry, read across all 1 MB scan pages, sorted by petId ascending (docs/contract.md "Semantics"). */
  list(): Promise<InventoryItem[]>;
  /**
   * Sets the quantity of an existing entry with one conditional UpdateItem (`attribute_exists(petId)`,
   * `ReturnValues: ALL_NEW`); never creates one. Returns the updated entry, or undefined when there is none.
   */
  setQuantity(petId: string, quantity: number): Promise<InventoryItem | undefined>;
  /**
   * Writes entries (create or replace) in BatchWriteItem requests of 25, resending unprocessed ones with
   * exponential backoff.
   */
  putMany(items: readonly InventoryItem[]): Promise<void>;
}

/** Raw item as read by the project's document clients: numbers arrive as NumberValue. */
type StoredItem = { petId: NumberValue; quantity: NumberValue; status: PetStatus };

function fromStored(item: Record<string, unknown>): InventoryItem {
  const { petId, quantity, status } = item as StoredItem;
  return { petId: petId.toString(), quantity: Number(quantity.toString()), status };
}

/** Items per BatchWriteItem request: DynamoDB's maximum. */
const batchSize = 25;
/** Base of the exponential backoff before resending items DynamoDB left unprocessed (throttled). */
const retryDelayMs = 25;

/** The store over `client` and the table `tableName`. */
export function inventoryStore(client: DynamoDBDocumentClient, tableName: string): InventoryStore {
  return {
    async list() {
      const items: InventoryItem[] = [];
      const pages = paginateScan(
        { client },
        {
          TableName: tableName,
          ProjectionExpression: 'petId, quantity, #status',
          ExpressionAttributeNames: { '#status': 'status' },
        },
      );
      for await (const page of pages) for (const item of page.Items ?? []) items.push(fromStored(item));
      return items.sort((a, b) => comparePetIds(a.petId, b.petId));
    },

    async setQuantity(petId, quantity) {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { petId: NumberValue.from(petId) },
            UpdateExpression: 'SET quantity = :quantity',
            ConditionExpression: 'attribute_exists(petId)',
            ExpressionAttributeValues: { ':quantity': quantity },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes && fromStored(Attributes);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    async putMany(items) {
      for (let start = 0; start < items.length; start += batchSize) {
        let requests: Record<string, unknown>[] | undefined = items
          .slice(start, start + batchSize)
          .map(({ petId, quantity, status }) => ({
            PutRequest: { Item: { petId: NumberValue.from(petId), quantity, status } },
          }));
        for (let attempt = 1; requests?.length; attempt++) {
          if (attempt > 1) await setTimeout(retryDelayMs * 2 ** Math.min(attempt, 6));
          const result: BatchWriteCommandOutput = await client.send(
            new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
          );
          requests = result.UnprocessedItems?.[tableName];
        }
      }
    },
  };
}
