/**
 * The service's tables on the testing kit's store (`startTestStore({ tables: serviceTables })`) and the
 * variables that point handler modules and processes at a store (docs/testing.md "Test support").
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { credentialVariables, dataFolderCredentials, type StoreCredentials } from '@pet-store/local-aws';
import { startTestStore, type TestStore } from '@pet-store/local-aws/testing';
import { ensureTables } from '#lib/admin/tables.ts';
import type { TableId } from '#lib/tables.ts';

/** The table names the tests use (the local defaults). */
export const testTableNames: Record<TableId, string> = {
  inventory: 'pet-store-inventory',
  apiKeys: 'pet-store-api-keys',
  orders: 'pet-store-orders',
  idempotency: 'pet-store-idempotency',
  inventoryHistory: 'pet-store-inventory-history',
  events: 'pet-store-events',
  webhookEndpoints: 'pet-store-webhook-endpoints',
  webhookFailures: 'pet-store-webhook-failures',
  webhookEndpointOwners: 'pet-store-webhook-endpoint-owners',
  webhookAttempts: 'pet-store-webhook-attempts',
};

/**
 * Creates the service's tables under {@link testTableNames} on `client`'s store, those it does not hold yet: the
 * `tables` of the kit's `startTestStore`.
 * @example const db = await startTestStore({ tables: serviceTables });
 */
export async function serviceTables(client: DynamoDBClient): Promise<void> {
  await ensureTables(client, testTableNames);
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
 * For a handler test's `beforeAll`: starts the kit's store with the service's tables ({@link serviceTables}),
 * points this process at it ({@link setFunctionEnvironment}) and only then imports the handler module with
 * `load` (the module reads its environment at import). The caller closes `db` in `afterAll`; when the import
 * fails, `db` is closed here and the error rethrown.
 */
export async function importHandlerOnTestDynamoDb<H>(
  load: () => Promise<{ handler: H }>,
): Promise<{ db: TestStore; handler: H }> {
  const db = await startTestStore({ tables: serviceTables });
  try {
    setFunctionEnvironment(db.endpoint, db.credentials);
    const { handler } = await load();
    return { db, handler };
  } catch (error) {
    await db.close();
    throw error;
  }
}
