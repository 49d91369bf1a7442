/** Starts the service under test in this process (docs/architecture.md "One table, three renderings"). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { inMemory } from 'local-aws';
import { afterAll, beforeAll, expect } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { type KeyStore, keyStore } from '#lib/auth/key-store.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import { listShardOf } from '#lib/inventory/list-shard.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { type InventoryStore, inventoryStore } from '#lib/inventory/store.ts';
import { type TableId, tables } from '#lib/tables.ts';
import type { ServedStack } from '#local/assembly.ts';
import { startLocalService } from '#local/service.ts';
import { localTableNames } from '#local/settings.ts';
import { type StoreAddress, storeVariables } from '#test/support/test-dynamodb.ts';
import { changeTimeFormat, putItem, type RawItem, type RecordedChange, sha256Hex } from './raw-tables.ts';
import { servedStagingStack } from './synthesized-assembly.ts';

/**
 * An inventory entry as {@link TestApi.tableItems} shows what the service stores: numbers as decimal text, the
 * list shard the service derives from petId and, with `change`, the last change (its `changedAt` any RFC 3339
 * UTC time with milliseconds unless given).
 */
export function storedEntry(
  petId: string,
  quantity: number | string,
  status: string,
  change?: RecordedChange,
): Record<string, string> {
  return {
    petId,
    quantity: String(quantity),
    status,
    listShard: String(listShardOf(petId)),
    ...(change && { reason: change.reason }),
    ...(change?.keyId && { keyId: change.keyId }),
    ...(change?.orderId && { orderId: change.orderId }),
    ...(change && { changedAt: change.changedAt ?? expect.stringMatching(changeTimeFormat) }),
  };
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
  /** The service's data folder: a temporary one when started `onDisk`, else `:memory:`. */
  dataDir: string;
  /** A low-level DynamoDB client on the store. */
  dynamoDb: DynamoDBClient;
  /** A valid key, stored hashed. */
  apiKey: string;
  /** `Authorization` header value carrying {@link apiKey}. */
  authorization: string;
  /** The id of {@link apiKey} (the first 12 hex digits of its SHA-256, as `keys list` shows it). */
  keyId: string;
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

/**
 * The throttle of the key of {@link startTestApi}: high enough that the suites' concurrent bursts are never
 * throttled (the throttling suite makes its own keys with low limits).
 */
export const unthrottled = { rateLimit: 100_000, burstLimit: 100_000 };

/** How to start the service under test; every option defaults to a fresh, empty, in-memory store. */
export interface TestApiOptions {
  /** The stack to serve (default: this run's synthesized staging stack). */
  stack?: ServedStack;
  /** Load the demo inventory (default false: tests arrange their own). */
  seed?: boolean;
  /** Entries to store before the first request. */
  inventory?: readonly InventoryItem[];
  /**
   * Keep the store in a new temporary data folder (removed by `close`), where the service advertises its
   * DynamoDB in `<dataDir>/endpoint` as the operator tools (`npm run keys`, `npm run import`) find it with
   * `DATA_DIR` alone; default in memory.
   */
  onDisk?: boolean;
  /** Use this DynamoDB (for example a restartable test DynamoDB) instead of an embedded one. */
  dynamoDb?: StoreAddress;
  /**
   * Run the event path: the stream mappings (change records), the bus and its rules, the queues' mappings
   * (webhooks). Default false: a suite that tests events asks for it (docs/testing.md "Two tiers").
   */
  events?: boolean;
}

/**
 * Registers the file's hooks: before its tests, starts the service under test with `options`; after them, closes
 * it. The members of the returned {@link TestApi} are set once the first hook has run.
 */
export function testApiSuite(options: TestApiOptions = {}): TestApi {
  const suite = {} as TestApi;
  beforeAll(async () => {
    Object.assign(suite, await startTestApi(options));
  });
  afterAll(() => suite.close?.());
  return suite;
}

/** Starts the service under test (see {@link TestApiOptions}). */
export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const apiKey = generateApiKey();
  const dataDir = options.onDisk ? await mkdtemp(join(tmpdir(), 'test-api-')) : inMemory;
  if (options.dynamoDb) Object.assign(process.env, storeVariables(options.dynamoDb));
  const service = await startLocalService({
    stack: options.stack ?? (await servedStagingStack()),
    dataDir,
    port: 0,
    host: '127.0.0.1',
    apiKey,
    seed: options.seed ?? false,
    keyThrottle: unthrottled,
    events: options.events ?? false,
  });
  const raw = new DynamoDBClient({});
  const client = toDocumentClient(raw);
  const names = localTableNames();
  const inventory = inventoryStore(client, names.inventory);
  if (options.inventory) await inventory.putMany(options.inventory);
  const api: TestApi = {
    baseUrl: service.baseUrl,
    dataDir,
    dynamoDb: raw,
    apiKey,
    authorization: `Bearer ${apiKey}`,
    keyId: sha256Hex(apiKey).slice(0, 12),
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
      if (options.dynamoDb) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      if (options.onDisk) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return api;
}
