/**
 * The embedded DynamoDB of the package's suites, with fixture tables of their own: two streamed tables
 * (`items` keyed by `petId`, `orders` keyed by `orderId`, both N) and one without a stream (`plain`, keyed by
 * `keyDigest` S).
 */
import { type DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createActiveTable, startTestStore as startStore, type TestStore } from '../../testing/test-store.ts';

export { createActiveTable, dynamoDbClient, type TestStore } from '../../testing/test-store.ts';

/** The fixture tables' names. */
export const testTables = { items: 'items', orders: 'orders', plain: 'plain' } as const;

/** Each fixture table: its name, key attribute and type, and whether it streams new and old images. */
const definitions = [
  { name: testTables.items, key: 'petId', type: 'N', stream: true },
  { name: testTables.orders, key: 'orderId', type: 'N', stream: true },
  { name: testTables.plain, key: 'keyDigest', type: 'S', stream: false },
] as const;

/** Creates the fixture tables (on demand) that `client`'s store does not hold yet (a data folder's may), each ACTIVE. */
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

/**
 * Starts the embedded DynamoDB with the fixture tables (the testing kit's {@link startStore}): in memory, on the
 * data folder `dataDir`, or with `restartable` on a fixed port (and a temporary data folder), so that a test can
 * stop it and start it again.
 */
export function startTestStore(
  options: { restartable?: boolean; dataDir?: string } = {},
): Promise<TestStore> {
  return startStore({ ...options, tables: createTestTables });
}
