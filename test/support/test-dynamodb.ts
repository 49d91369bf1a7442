/**
 * Starts the tests' DynamoDB (the embedded store, on dynalite) with the service's tables and points handler
 * modules at it (docs/architecture.md "Principles").
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { credentialVariables, dataFolderCredentials, type StoreCredentials } from '@pet-store/local-aws';
import { startTestStore, type TestStore } from '@pet-store/local-aws/testing';
import { ensureTables } from '#lib/admin/tables.ts';
import type { TableId } from '#lib/tables.ts';

export { dynamoDbClient } from '@pet-store/local-aws/testing';

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

/** A running test DynamoDB and a raw client on it (the testing kit's test store). */
export type TestDynamoDb = TestStore;

/**
 * Starts the embedded DynamoDB on a free port of 127.0.0.1 (the testing kit's `startTestStore`): in memory, on
 * the data folder `dataDir` (a local store, as `npm start` and the operator tools keep it; left in place by
 * `close`), or with `restartable` on a port fixed at the start (and a temporary data folder unless `dataDir` is
 * given), so that a test can stop it and start it again under a running service. With `tables` (default true)
 * it creates the service's tables under {@link testTableNames}.
 */
export function startTestDynamoDb(
  options: { tables?: boolean; restartable?: boolean; dataDir?: string } = {},
): Promise<TestDynamoDb> {
  const { tables, ...store } = options;
  return startTestStore({
    ...store,
    ...(tables !== false ? { tables: (client) => ensureTables(client, testTableNames) } : {}),
  });
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
