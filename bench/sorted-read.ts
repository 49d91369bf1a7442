/**
 * The raw sorted read a list is measured against: one paginated Query per shard of the list index
 * (lib/inventory/list-index.ts), all shards at once, same projection and page size as the store, items
 * collected per shard in the order DynamoDB returns them (petId order), no merge, no JSON.
 */
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { listIndex } from '#lib/inventory/list-index.ts';
import { maxQueryItems } from '#lib/inventory/store.ts';

/**
 * Reads every entry of `table` through the list index: how many, and with `capacity` the read units DynamoDB
 * reported (asked only then: the emulator's accounting slows the read it would time).
 */
export async function sortedIndexRead(
  client: DynamoDBDocumentClient,
  table: string,
  capacity = false,
): Promise<{ entries: number; readUnits: number }> {
  let readUnits = 0;
  const shard = async (number: number) => {
    const items: Record<string, unknown>[] = [];
    const pages = paginateQuery(
      { client, pageSize: maxQueryItems },
      {
        TableName: table,
        IndexName: listIndex.name,
        KeyConditionExpression: '#shard = :shard',
        ProjectionExpression: 'petId, quantity, #status',
        ExpressionAttributeNames: { '#shard': listIndex.shardAttribute, '#status': 'status' },
        ExpressionAttributeValues: { ':shard': number },
        ...(capacity && { ReturnConsumedCapacity: 'TOTAL' as const }),
      },
    );
    for await (const page of pages) {
      items.push(...(page.Items ?? []));
      readUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
    }
    return items.length;
  };
  const counts = await Promise.all(Array.from({ length: listIndex.shards }, (_, number) => shard(number)));
  return { entries: counts.reduce((sum, count) => sum + count, 0), readUnits };
}
