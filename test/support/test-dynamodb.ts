/**
 * A real DynamoDB API for tests (an in-memory dynalite with the service's tables) and raw table access that
 * does not go through the code under test: items are written and read as DynamoDB attribute values, so a test
 * sees exactly what is stored (numbers as DynamoDB's decimal strings, every digit kept).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  paginateScan,
} from '@aws-sdk/client-dynamodb';
import { ensureTables, inMemory, type LocalDynamoDb, startDynamoDb } from '#infra/local/dynamodb.ts';
import { listShardOf } from '#lib/inventory/list-index.ts';
import type { TableId } from '#lib/tables.ts';
import { freePort } from './free-port.ts';

/** A stored item, attribute by attribute, as DynamoDB returns it. */
export type RawItem = Record<string, AttributeValue>;

/** The table names the tests use (the local defaults). */
export const testTableNames: Record<TableId, string> = {
  inventory: 'pet-store-inventory',
  apiKeys: 'pet-store-api-keys',
  orders: 'pet-store-orders',
  idempotency: 'pet-store-idempotency',
};

/** A running in-memory DynamoDB with both tables, and a raw client on it. */
export interface TestDynamoDb {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** A low-level client on {@link endpoint}. */
  client: DynamoDBClient;
  close(): Promise<void>;
}

/** A low-level DynamoDB client on `endpoint` with dummy credentials (dynalite accepts any signature). */
export function dynamoDbClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

/**
 * Starts an in-memory dynalite on a free port. With `tables` (default true) it creates the service's tables
 * under {@link testTableNames}.
 */
export async function startTestDynamoDb(options: { tables?: boolean } = {}): Promise<TestDynamoDb> {
  const db = await startDynamoDb({ dataDir: inMemory });
  const client = dynamoDbClient(db.endpoint);
  if (options.tables !== false) await ensureTables(client, testTableNames);
  return {
    endpoint: db.endpoint,
    client,
    async close() {
      client.destroy();
      await db.close();
    },
  };
}

/**
 * A dynalite that a test stops and starts again under a running service: on a temporary data folder (kept
 * across restarts) and a port fixed at the start.
 */
export interface RestartableDynamoDb {
  dataDir: string;
  port: number;
  /** Stops it (nothing listens on {@link port} afterwards); does nothing when it is stopped already. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data folder. */
  start(): Promise<void>;
  /** Stops it and removes the data folder. */
  close(): Promise<void>;
}

/**
 * Starts a {@link RestartableDynamoDb} on a new data folder `<os tmpdir>/<prefix>...` and a free port, and
 * sets `AWS_ENDPOINT_URL_DYNAMODB` to it, so that a `startTestApi()` called afterwards uses it (creating the
 * service's tables in it) instead of starting a database of its own.
 */
export async function startRestartableDynamoDb(prefix: string): Promise<RestartableDynamoDb> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const port = await freePort();
  let db: LocalDynamoDb | undefined = await startDynamoDb({ dataDir, port });
  process.env.AWS_ENDPOINT_URL_DYNAMODB = db.endpoint;
  const stop = async () => {
    await db?.close();
    db = undefined;
  };
  return {
    dataDir,
    port,
    stop,
    async start() {
      db = await startDynamoDb({ dataDir, port });
    },
    async close() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Points the AWS SDK of this process at `endpoint` with the test table names, as the stack and the local
 * server configure a function. Call it before importing a handler module: the module reads it at import.
 */
export function setFunctionEnvironment(endpoint: string): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.INVENTORY_TABLE_NAME = testTableNames.inventory;
  process.env.API_KEYS_TABLE_NAME = testTableNames.apiKeys;
  process.env.AWS_REGION ||= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
}

/**
 * For a handler test's `beforeAll`: starts a dynalite with the service's tables ({@link startTestDynamoDb}),
 * points this process at it ({@link setFunctionEnvironment}) and only then imports the handler module with
 * `load` (the module reads its environment at import). The caller closes `db` in `afterAll`; when the import
 * fails, `db` is closed here and the error rethrown.
 */
export async function importHandlerOnTestDynamoDb<H>(
  load: () => Promise<{ handler: H }>,
): Promise<{ db: TestDynamoDb; handler: H }> {
  const db = await startTestDynamoDb();
  try {
    setFunctionEnvironment(db.endpoint);
    const { handler } = await load();
    return { db, handler };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * An inventory item as the service stores it: `petId` and `quantity` Numbers, `status` a String, and the list
 * shard the service derives from petId (`listShard`, Number).
 */
export function inventoryRecord(petId: string, quantity: number, status: string): RawItem {
  return { ...legacyInventoryRecord(petId, quantity, status), listShard: { N: String(listShardOf(petId)) } };
}

/** `count` petIds from `from` up whose list shard is `shard`: entries that all land in one index partition. */
export function petIdsInShard(shard: number, count: number, from = 1): string[] {
  const ids: string[] = [];
  for (let id = from; ids.length < count; id++) if (listShardOf(String(id)) === shard) ids.push(String(id));
  return ids;
}

/** An inventory item as the service stored it before the list index: without `listShard`. */
export function legacyInventoryRecord(petId: string, quantity: number, status: string): RawItem {
  return { petId: { N: petId }, quantity: { N: String(quantity) }, status: { S: status } };
}

/** Writes `items` (any attributes) into `table` with raw BatchWriteItem requests of 25. */
export async function putItems(client: DynamoDBClient, table: string, items: readonly RawItem[]) {
  for (let start = 0; start < items.length; start += 25) {
    const requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed items');
  }
}

/** Deletes every item of the inventory table `table` (partition key `petId`) with raw BatchWriteItem requests. */
export async function clearInventory(client: DynamoDBClient, table: string): Promise<void> {
  const items = await scanTable(client, table);
  for (let start = 0; start < items.length; start += 25) {
    const requests = items
      .slice(start, start + 25)
      .map((item) => ({ DeleteRequest: { Key: { petId: item.petId as AttributeValue } } }));
    const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed items');
  }
}

/** Writes one item into `table` with a raw PutItem. */
export async function putItem(client: DynamoDBClient, table: string, item: RawItem): Promise<void> {
  await client.send(new PutItemCommand({ TableName: table, Item: item }));
}

/** Numeric order of two decimal integer strings, computed with BigInt. */
function byNumber(a: string | undefined, b: string | undefined): number {
  const x = BigInt(a ?? '0');
  const y = BigInt(b ?? '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Every item of `table` exactly as stored, read with a raw paginated Scan; inventory items sorted by petId
 * (numerically), key items by digest.
 */
export async function scanTable(client: DynamoDBClient, table: string): Promise<RawItem[]> {
  const items: RawItem[] = [];
  for await (const page of paginateScan({ client }, { TableName: table })) items.push(...(page.Items ?? []));
  return items.sort((a, b) =>
    a.petId ? byNumber(a.petId.N, b.petId?.N) : String(a.keyDigest?.S).localeCompare(String(b.keyDigest?.S)),
  );
}

/** The names of every table at the client's endpoint. */
export async function tableNames(client: DynamoDBClient): Promise<string[]> {
  const { TableNames } = await client.send(new ListTablesCommand({}));
  return TableNames ?? [];
}

/** SHA-256 of `apiKey` in lowercase hex, computed here independently of lib/auth. */
export function sha256Hex(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
