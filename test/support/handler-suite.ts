/** Setup of the handler suites: a handler module on its own test DynamoDB, and its events (docs/architecture.md "Principles"). */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { type FaultProxy, proxiedTestDynamoDb } from './dynamodb-fault-proxy.ts';
import {
  type AuthorizerHandler,
  type ProxyHandler,
  type ProxyRequest,
  restProxyEvent,
  type StreamingHandler,
} from './lambda-events.ts';
import { installStreamingRuntime } from './lambda-invoke.ts';
import { clearInventory, inventoryRecord, putItems, type RawItem } from './raw-tables.ts';
import { importHandlerOnTestDynamoDb, testTableNames } from './test-dynamodb.ts';

/** The entries the inventory write handlers' tests start each test from: int64's maximum, a negative petId. */
export const startingEntries: readonly RawItem[] = [
  inventoryRecord('-7', 1, 'sold'),
  inventoryRecord('5', 10, 'pending'),
  inventoryRecord('9223372036854775807', 3, 'available'),
];

/** The key id of the authorizer context of every test event (test/support/lambda-events.ts). */
export const eventKeyId = '0123456789ab';

/** Registers a `beforeEach` that sets `suite`'s inventory table to exactly {@link startingEntries}. */
export function startEachTestFromEntries(suite: HandlerSuite<unknown>): void {
  beforeEach(async () => {
    await clearInventory(suite.db.client, testTableNames.inventory);
    await putItems(suite.db.client, testTableNames.inventory, startingEntries);
  });
}

/** A handler's Error response: JSON content type and exactly `code`, `message`, `status`. */
export function errorResult(status: number, code: string, message: string) {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code, message, status }),
  };
}

/** A handler module imported on its own test DynamoDB; set by the hooks of {@link handlerSuite}. */
export interface HandlerSuite<H> {
  db: TestStore;
  handler: H;
}

/**
 * Registers the file's hooks: before its tests, starts a test DynamoDB, imports the handler module with `load`
 * on it ({@link importHandlerOnTestDynamoDb}; `environment` set over the functions' test environment first)
 * and writes `inventory` into its inventory table; after them, closes the database. The members of the
 * returned object are set once those hooks have run.
 */
export function handlerSuite<H>(
  load: () => Promise<{ handler: H }>,
  inventory: readonly RawItem[] = [],
  environment: Record<string, string> = {},
): HandlerSuite<H> {
  const suite = {} as HandlerSuite<H>;
  beforeAll(async () => {
    const loadInEnvironment = () => {
      Object.assign(process.env, environment);
      return load();
    };
    Object.assign(suite, await importHandlerOnTestDynamoDb(loadInEnvironment));
    await putItems(suite.db.client, testTableNames.inventory, inventory);
  });
  afterAll(() => suite.db?.close());
  return suite;
}

/** The handlers of listInventory, updateInventory and the authorizer. */
export interface InventoryHandlers {
  listInventory: StreamingHandler;
  updateInventory: ProxyHandler;
  authorizer: AuthorizerHandler;
}

/**
 * Installs the Lambda runtime's streaming globals and imports the three handler modules (each reads its
 * environment at import: point it at a DynamoDB first). As `handler` for {@link handlerSuite}: see
 * {@link loadInventoryHandlers}.
 */
export async function importInventoryHandlers(): Promise<InventoryHandlers> {
  installStreamingRuntime();
  // updateInventory keeps its Idempotency-Key records there.
  process.env.IDEMPOTENCY_TABLE_NAME ??= testTableNames.idempotency;
  return {
    // middy types the Lambda signature (event, context); in streaming mode the runtime calls (event, stream, context).
    listInventory: (await import('#functions/list-inventory/handler.ts'))
      .handler as unknown as StreamingHandler,
    updateInventory: (await import('#functions/update-inventory/handler.ts')).handler,
    authorizer: (await import('#functions/authorizer/handler.ts')).handler,
  };
}

/** {@link importInventoryHandlers} as a module loader of {@link handlerSuite}: its `handler` holds the three. */
export async function loadInventoryHandlers(): Promise<{ handler: InventoryHandlers }> {
  return { handler: await importInventoryHandlers() };
}

/** `GET /inventory` with `headers` and the query parameters of `request`, as listInventory receives it. */
export function listInventoryEvent(
  headers: Record<string, string> = {},
  request: Partial<ProxyRequest> = {},
) {
  return restProxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory', headers, ...request });
}

/**
 * `PATCH /inventory/<petId>` with `body` and `headers` (default a JSON content type), and any other part of
 * `request`, as updateInventory receives it.
 */
export function updateInventoryEvent(
  petId: string,
  body: string | null,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
  request: Partial<ProxyRequest> = {},
) {
  return restProxyEvent({
    method: 'PATCH',
    resource: '/inventory/{petId}',
    path: `/inventory/${petId}`,
    pathParameters: { petId },
    headers,
    body,
    ...request,
  });
}

/** The store and proxy of {@link proxiedInventorySuite}, and a write through the proxy. */
export interface ProxiedSuite {
  db: TestStore;
  proxy: FaultProxy;
  /** Runs `write` with a document client whose requests go through the proxy; the error it throws, or undefined. */
  errorOf(write: (client: DynamoDBDocumentClient) => Promise<unknown>): Promise<unknown>;
}

/**
 * A suite's store behind a {@link FaultProxy}, its hooks registered: started before all tests (this process's
 * functions pointed at the proxy) and closed after; before each test every fault is lifted, the inventory
 * table emptied and the recorded operations cleared. `db` and `proxy` are set once `beforeAll` has run.
 */
export function proxiedInventorySuite(): ProxiedSuite {
  const suite = {
    async errorOf(write: (client: DynamoDBDocumentClient) => Promise<unknown>): Promise<unknown> {
      const client = dynamoDbClient(suite.proxy.endpoint, suite.db.credentials);
      try {
        await write(toDocumentClient(client));
        return undefined;
      } catch (error) {
        return error;
      } finally {
        client.destroy();
      }
    },
  } as ProxiedSuite;
  beforeAll(async () => {
    Object.assign(suite, await proxiedTestDynamoDb());
  });
  afterAll(async () => {
    await suite.proxy?.close();
    await suite.db?.close();
  });
  beforeEach(async () => {
    suite.proxy.restore();
    await clearInventory(suite.db.client, testTableNames.inventory);
    suite.proxy.operations = [];
  });
  return suite;
}
