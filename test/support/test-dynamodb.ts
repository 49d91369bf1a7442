/** Starts the tests' DynamoDB (dynalite) and points handler modules at it (docs/architecture.md "Principles"). */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  credentialVariables,
  dataFolderCredentials,
  inMemory,
  type LocalDynamoDb,
  type StoreCredentials,
  startDynamoDb,
} from '@pet-store/local-aws';
import { ensureTables } from '#lib/admin/tables.ts';
import type { TableId } from '#lib/tables.ts';
import { freePort } from './free-port.ts';

/** The table names the tests use (the local defaults). */
export const testTableNames: Record<TableId, string> = {
  inventory: 'pet-store-inventory',
  apiKeys: 'pet-store-api-keys',
  orders: 'pet-store-orders',
  idempotency: 'pet-store-idempotency',
  inventoryHistory: 'pet-store-inventory-history',
  events: 'pet-store-events',
  webhookSubscriptions: 'pet-store-webhook-subscriptions',
  webhookFailures: 'pet-store-webhook-failures',
  webhookEndpointOwners: 'pet-store-webhook-endpoint-owners',
};

/** A running test DynamoDB and a raw client on it. */
export interface TestDynamoDb {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** The port of {@link endpoint}. */
  port: number;
  /** The credentials it accepts (its store's own). */
  credentials: StoreCredentials;
  /** A low-level client on {@link endpoint}, signing with {@link credentials}. */
  client: DynamoDBClient;
  /** Stops it (nothing listens on {@link endpoint} afterwards); does nothing when it is stopped already. */
  stop(): Promise<void>;
  /**
   * Starts it again on the same port, with the data it had (restartable only).
   * @throws when it was not started `restartable`.
   */
  start(): Promise<void>;
  /** Destroys the client, stops it and removes the temporary data folder of a `restartable` one. */
  close(): Promise<void>;
}

/** A low-level DynamoDB client on `endpoint` signing with `credentials` (the embedded store's own). */
export function dynamoDbClient(endpoint: string, credentials: StoreCredentials): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
}

/**
 * Starts a dynalite on a free port of 127.0.0.1: in memory, on the data folder `dataDir` (a local store, as
 * `npm start` and the operator tools keep it; left in place by `close`), or with `restartable` on a port fixed
 * at the start (and a temporary data folder unless `dataDir` is given), so that a test can stop it and start it
 * again under a running service. With `tables` (default true) it creates the service's tables under
 * {@link testTableNames}.
 */
export async function startTestDynamoDb(
  options: { tables?: boolean; restartable?: boolean; dataDir?: string } = {},
): Promise<TestDynamoDb> {
  const temporary = options.restartable && options.dataDir === undefined;
  const dataDir = options.dataDir ?? (temporary ? await mkdtemp(join(tmpdir(), 'test-dynamodb-')) : inMemory);
  const port = options.restartable ? await freePort() : 0;
  let db: LocalDynamoDb | undefined = await startDynamoDb({ dataDir, port });
  const { endpoint, credentials } = db;
  const client = dynamoDbClient(endpoint, credentials);
  if (options.tables !== false) await ensureTables(client, testTableNames);
  const stop = async () => {
    await db?.close();
    db = undefined;
  };
  return {
    endpoint,
    port: Number(new URL(endpoint).port),
    credentials,
    client,
    stop,
    async start() {
      if (!options.restartable) throw new Error('this test DynamoDB was not started restartable');
      db ??= await startDynamoDb({ dataDir, port });
    },
    async close() {
      client.destroy();
      await stop();
      if (temporary) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** An embedded DynamoDB as a client reaches it: its endpoint and the credentials it accepts. */
export interface StoreAddress {
  endpoint: string;
  credentials: StoreCredentials;
}

/** The variables that point a process (a tool, `npm start`) at `store`: its endpoint and its credentials. */
export function storeVariables(store: StoreAddress): Record<string, string> {
  return { AWS_ENDPOINT_URL_DYNAMODB: store.endpoint, ...credentialVariables(store.credentials) };
}

/** The embedded DynamoDB serving the data folder `dataDir`: the endpoint it advertises, its credentials. */
export async function runningStore(dataDir: string): Promise<StoreAddress> {
  const endpoint = (await readFile(join(dataDir, 'endpoint'), 'utf8')).trim();
  return { endpoint, credentials: await dataFolderCredentials(dataDir) };
}

/**
 * Points the AWS SDK of this process at `endpoint` with `credentials` and the test table names, as the stack
 * and the local server configure a function. Call it before importing a handler module: the module reads it
 * at import.
 */
export function setFunctionEnvironment(endpoint: string, credentials: StoreCredentials): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.INVENTORY_TABLE_NAME = testTableNames.inventory;
  process.env.API_KEYS_TABLE_NAME = testTableNames.apiKeys;
  process.env.AWS_REGION ||= 'us-east-1';
  Object.assign(process.env, credentialVariables(credentials));
  delete process.env.AWS_SESSION_TOKEN;
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
    setFunctionEnvironment(db.endpoint, db.credentials);
    const { handler } = await load();
    return { db, handler };
  } catch (error) {
    await db.close();
    throw error;
  }
}
