/**
 * The service under test over HTTP: the local service (infra/local/service.ts) serving this run's synthesized
 * staging stack on a free port, backed by an in-memory dynalite, with a fresh API key; plus direct access to its tables to arrange state and to assert
 * the state a request left behind.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import type { ServedStack } from '#infra/local/assembly.ts';
import { inMemory, localTableNames } from '#infra/local/dynamodb.ts';
import { type LocalService, startLocalService } from '#infra/local/service.ts';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { type KeyStore, keyStore } from '#lib/auth/key-store.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { listShardOf } from '#lib/inventory/list-index.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { type InventoryStore, inventoryStore } from '#lib/inventory/store.ts';
import { type TableId, tables } from '#lib/tables.ts';
import { servedStagingStack } from './synthesized-assembly.ts';
import { dynamoDbClient, putItem, type RawItem } from './test-dynamodb.ts';

/**
 * An inventory entry as {@link TestApi.tableItems} shows what the service stores: numbers as decimal text, and
 * the list shard the service derives from petId.
 */
export function storedEntry(
  petId: string,
  quantity: number | string,
  status: string,
): Record<string, string> {
  return { petId, quantity: String(quantity), status, listShard: String(listShardOf(petId)) };
}

/** A response as the client sees it. */
export interface TestResponse {
  status: number;
  headers: Headers;
  /** The raw body text. */
  text: string;
}

/** A running service under test. */
export interface TestApi {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** A valid key, stored hashed. */
  apiKey: string;
  /** `Authorization` header value carrying {@link apiKey}. */
  authorization: string;
  inventory: InventoryStore;
  keys: KeyStore;
  /** Sends a request to `baseUrl + path`. */
  request(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string | Uint8Array },
  ): Promise<TestResponse>;
  /** `GET /inventory` with {@link authorization}. */
  list(): Promise<TestResponse>;
  /**
   * `PATCH /inventory/<petId>` with `body` and the headers of a valid update, {@link authorization} and
   * `Content-Type: application/json`; `headers` are added to them or replace them by name.
   */
  patch(petId: string, body: string, headers?: Record<string, string>): Promise<TestResponse>;
  /**
   * Writes `items` into the inventory table one by one with raw PutItem requests, attributes exactly as
   * given (for items the API would not write, e.g. ones padded with an attribute it does not know).
   */
  putRawItems(items: readonly RawItem[], table?: TableId): Promise<void>;
  /**
   * Every item of a table (default the inventory) exactly as stored (numbers as DynamoDB's decimal strings;
   * other values as their JSON), read with a raw Scan independent of the code under test, sorted by the
   * table's partition key (numerically for a Number key).
   */
  tableItems(table?: TableId): Promise<Record<string, string>[]>;
  close(): Promise<void>;
}

/** The local service running in this process on a data folder, as the operator tools find it. */
export interface LocalStore {
  /** The data folder (a temporary one, removed by {@link close}). */
  dataDir: string;
  service: LocalService;
  /** A raw DynamoDB client on the endpoint the service advertises in `<dataDir>/endpoint`. */
  client: DynamoDBClient;
  /** Destroys the client, stops the service and removes the data folder. */
  close(): Promise<void>;
}

/**
 * Starts the local service (not seeded) on a new temporary data folder `<os tmpdir>/<prefix>...` and a free
 * port of 127.0.0.1, and opens a raw client on the DynamoDB it advertises in `<dataDir>/endpoint`: the store
 * that the tool suites run `npm run keys` and `npm run import` against with `DATA_DIR` alone.
 */
export async function startLocalStore(prefix: string): Promise<LocalStore> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const service = await startLocalService({
    stack: await servedStagingStack(),
    dataDir,
    port: 0,
    host: '127.0.0.1',
    seed: false,
  });
  const client = dynamoDbClient((await readFile(join(dataDir, 'endpoint'), 'utf8')).trim());
  return {
    dataDir,
    service,
    client,
    async close() {
      client.destroy();
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The throttle of the key of {@link startTestApi}: high enough that the suites' concurrent bursts are never
 * throttled (the throttling suite makes its own keys with low limits).
 */
export const unthrottled = { rateLimit: 100_000, burstLimit: 100_000 };

/**
 * Starts the service under test serving `stack` (default: this run's synthesized staging stack); `seed` loads
 * the demo inventory (default false: tests arrange their own).
 */
export async function startTestApi(options: { seed?: boolean; stack?: ServedStack } = {}): Promise<TestApi> {
  const apiKey = generateApiKey();
  const service = await startLocalService({
    stack: options.stack ?? (await servedStagingStack()),
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
    apiKey,
    seed: options.seed ?? false,
    keyThrottle: unthrottled,
  });
  const raw = new DynamoDBClient({});
  const client = toDocumentClient(raw);
  const names = localTableNames();
  const inventory = inventoryStore(client, names.inventory);
  const api: TestApi = {
    baseUrl: service.baseUrl,
    apiKey,
    authorization: `Bearer ${apiKey}`,
    inventory,
    keys: keyStore(client, names.apiKeys),
    async request(method, path, init = {}) {
      const response = await fetch(service.baseUrl + path, {
        method,
        headers: init.headers,
        body: init.body,
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    },
    list() {
      return api.request('GET', '/inventory', { headers: { Authorization: api.authorization } });
    },
    patch(petId, body, headers = {}) {
      return api.request('PATCH', `/inventory/${petId}`, {
        headers: { Authorization: api.authorization, 'Content-Type': 'application/json', ...headers },
        body,
      });
    },
    async putRawItems(items, table = 'inventory') {
      for (const item of items) await putItem(raw, names[table], item);
    },
    async tableItems(table = 'inventory') {
      const items: Record<string, string>[] = [];
      for await (const page of paginateScan({ client: raw }, { TableName: names[table] })) {
        for (const item of page.Items ?? []) {
          items.push(
            Object.fromEntries(
              Object.entries(item).map(([name, value]) => [
                name,
                value.N ?? value.S ?? JSON.stringify(value),
              ]),
            ),
          );
        }
      }
      const { name, type } = tables[table].partitionKey;
      return items.sort((a, b) =>
        type === 'N'
          ? comparePetIds(a[name] ?? '', b[name] ?? '')
          : (a[name] ?? '').localeCompare(b[name] ?? ''),
      );
    },
    async close() {
      client.destroy();
      await service.close();
    },
  };
  return api;
}
