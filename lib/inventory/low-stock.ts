/**
 * Low entries (docs/contract.md "Inventory semantics": reorder points) and the sparse low-stock index's
 * attribute, kept by the change records' consumer: docs/architecture.md "Low stock".
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, NumberValue, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lowStockIndex } from '../tables.ts';
import { listShardOf } from './list-shard.ts';

/** True when an entry of `quantity` with the reorder point `reorderPoint` (none: undefined) is low. */
export function isLow(quantity: number, reorderPoint: number | undefined): boolean {
  return reorderPoint !== undefined && quantity <= reorderPoint;
}

/** An entry's state as its newest stream image shows it: low or not, and whether it carries the index attribute. */
export interface LowStockState {
  petId: string;
  low: boolean;
  indexed: boolean;
}

/**
 * Brings the index attribute (`lowShard`, the entry's list shard) of each entry of `states` in line with its
 * state, one conditional UpdateItem per entry that differs: set while the entry is low (`quantity <=
 * reorderPoint` on the item itself), removed while it is not. A condition that fails means a later write
 * changed the entry: its own stream record decides again. The writers never set the attribute: an update
 * expression cannot set one attribute by comparing two others.
 * @throws any DynamoDB error other than a failed condition (the consumer's batch is retried)
 */
export async function indexLowStock(
  client: DynamoDBDocumentClient,
  tableName: string,
  states: readonly LowStockState[],
): Promise<void> {
  const shard = lowStockIndex.shardAttribute;
  await Promise.all(
    states
      .filter(({ low, indexed }) => low !== indexed)
      .map(async ({ petId, low }) => {
        const update = low
          ? {
              UpdateExpression: `SET ${shard} = :shard`,
              ConditionExpression: 'quantity <= reorderPoint',
              ExpressionAttributeValues: { ':shard': listShardOf(petId) },
            }
          : {
              UpdateExpression: `REMOVE ${shard}`,
              ConditionExpression:
                'attribute_exists(petId) AND (attribute_not_exists(reorderPoint) OR quantity > reorderPoint)',
            };
        try {
          await client.send(
            new UpdateCommand({ TableName: tableName, Key: { petId: NumberValue.from(petId) }, ...update }),
          );
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      }),
  );
}
