/**
 * The fixture tables of the package's suites, on the testing kit's store (`startTestStore({ tables:
 * createTestTables })`): two streamed tables (`items` keyed by `itemId`, `orders` keyed by `orderId`, both N)
 * and one without a stream (`plain`, keyed by `keyDigest` S).
 */
import { type DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createActiveTable } from '../../testing/test-store.ts';

/** The fixture tables' names. */
export const testTables = { items: 'items', orders: 'orders', plain: 'plain' } as const;

/** Each fixture table: its name, key attribute and type, and whether it streams new and old images. */
const definitions = [
  { name: testTables.items, key: 'itemId', type: 'N', stream: true },
  { name: testTables.orders, key: 'orderId', type: 'N', stream: true },
  { name: testTables.plain, key: 'keyDigest', type: 'S', stream: false },
] as const;

/**
 * Creates the fixture tables (on demand) that `client`'s store does not hold yet (a data folder's may), each ACTIVE:
 * the `tables` of the kit's `startTestStore`.
 */
export async function createTestTables(client: DynamoDBClient): Promise<void> {
  const { TableNames: existing = [] } = await client.send(new ListTablesCommand({}));
  for (const { name, key, type, stream } of definitions) {
    if (existing.includes(name)) continue;
    await createActiveTable(client, {
      TableName: name,
      AttributeDefinitions: [{ AttributeName: key, AttributeType: type }],
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      ...(stream
        ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }
        : {}),
    });
  }
}
