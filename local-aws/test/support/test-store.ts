/**
 * The embedded DynamoDB of the package's suites, with fixture tables of their own: two streamed tables
 * (`items` keyed by `petId`, `orders` keyed by `orderId`, both N) and one without a stream (`plain`, keyed by
 * `keyDigest` S).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { StoreCredentials } from '../../common/store-credentials.ts';
import { inMemory, type LocalDynamoDb, startDynamoDb } from '../../dynamodb/dynamodb.ts';

/** The fixture tables' names. */
export const testTables = { items: 'items', orders: 'orders', plain: 'plain' } as const;

/** Each fixture table: its name, key attribute and type, and whether it streams new and old images. */
const definitions = [
  { name: testTables.items, key: 'petId', type: 'N', stream: true },
  { name: testTables.orders, key: 'orderId', type: 'N', stream: true },
  { name: testTables.plain, key: 'keyDigest', type: 'S', stream: false },
] as const;

/** A low-level DynamoDB client on `endpoint` signing with `credentials` (the embedded store's own). */
export function dynamoDbClient(endpoint: string, credentials: StoreCredentials): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
}

/** Creates the fixture tables (on demand) that `client`'s store does not hold yet (a data folder's may). */
export async function createTestTables(client: DynamoDBClient): Promise<void> {
  const { TableNames: existing = [] } = await client.send(new ListTablesCommand({}));
  for (const { name, key, type, stream } of definitions) {
    if (existing.includes(name)) continue;
    await client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: key, AttributeType: type }],
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        ...(stream
          ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }
          : {}),
      }),
    );
  }
}

/** A free TCP port of 127.0.0.1 (free when asked: another process may take it before it is used). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A running test store and a raw client on it. */
export interface TestStore {
  endpoint: string;
  credentials: StoreCredentials;
  client: DynamoDBClient;
  /** Stops it; does nothing when it is stopped already. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the data it had. @throws when it was not started `restartable` */
  start(): Promise<void>;
  /** Destroys the client, stops it and removes the temporary data folder of a `restartable` one. */
  close(): Promise<void>;
}

/**
 * Starts the embedded DynamoDB with the fixture tables: in memory, or with `restartable` on a fixed port and a
 * temporary data folder, so that a test can stop it and start it again.
 */
export async function startTestStore(options: { restartable?: boolean } = {}): Promise<TestStore> {
  const dataDir = options.restartable ? await mkdtemp(join(tmpdir(), 'test-store-')) : inMemory;
  const port = options.restartable ? await freePort() : 0;
  let db: LocalDynamoDb | undefined = await startDynamoDb({ dataDir, port });
  const { endpoint, credentials } = db;
  const client = dynamoDbClient(endpoint, credentials);
  await createTestTables(client);
  const stop = async () => {
    await db?.close();
    db = undefined;
  };
  return {
    endpoint,
    credentials,
    client,
    stop,
    async start() {
      if (!options.restartable) throw new Error('this test store was not started restartable');
      db ??= await startDynamoDb({ dataDir, port });
    },
    async close() {
      client.destroy();
      await stop();
      if (options.restartable) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
