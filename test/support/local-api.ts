/**
 * The service under test over HTTP: the local service (infra/local/service.ts) on a free port, backed by an
 * in-memory dynalite, with a fresh API key; plus direct access to its tables to arrange state and to assert
 * the state a request left behind.
 */
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inMemory, localTableNames } from '#infra/local/dynamodb.ts';
import { startLocalService } from '#infra/local/service.ts';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { type KeyStore, keyStore } from '#lib/auth/key-store.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { type InventoryStore, inventoryStore } from '#lib/inventory/store.ts';

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
  /**
   * Every item of the inventory table exactly as stored (numbers as DynamoDB's decimal strings), read with a
   * raw Scan independent of the code under test, sorted by petId.
   */
  tableItems(): Promise<Record<string, string>[]>;
  close(): Promise<void>;
}

/** Starts the service under test; `seed` loads the demo inventory (default false: tests arrange their own). */
export async function startTestApi(options: { seed?: boolean } = {}): Promise<TestApi> {
  const apiKey = generateApiKey();
  const service = await startLocalService({
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
    apiKey,
    seed: options.seed ?? false,
  });
  const raw = new DynamoDBClient({});
  const client = DynamoDBDocumentClient.from(raw, { unmarshallOptions: { wrapNumbers: true } });
  const names = localTableNames();
  const inventory = inventoryStore(client, names.inventory);
  return {
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
    async tableItems() {
      const items: Record<string, string>[] = [];
      for await (const page of paginateScan({ client: raw }, { TableName: names.inventory })) {
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
      return items.sort((a, b) => comparePetIds(a.petId ?? '', b.petId ?? ''));
    },
    async close() {
      client.destroy();
      await service.close();
    },
  };
}
