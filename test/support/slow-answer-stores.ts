/**
 * The stores the slow-answer suite (test/faults/slow-answer.test.ts) runs `npm start` on, each with its way of
 * answering a committed write past the SDK's request timeout (docs/architecture.md "Slow answers"): the
 * embedded store with test/support/slow-answer-hook.ts preloaded into the server, and AWS's DynamoDB Local
 * behind the fault proxy (test/support/dynamodb-fault-proxy.ts, fault `late`).
 */
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { credentialVariables } from 'local-aws';
import { temporaryDir } from 'local-aws/testing';
import type { InventoryChange } from '#lib/events/changes.ts';
import { inventoryChangeOf } from '#lib/events/stream-changes.ts';
import type { TableId } from '#lib/tables.ts';
import { startFaultProxy } from './dynamodb-fault-proxy.ts';
import { startDynamoDbLocal, streamRecords } from './dynamodb-local.ts';
import { type RawItem, scanTable } from './raw-tables.ts';
import { type ServerAnswer, storeTable } from './server-calls.ts';
import { runningStore, storeVariables, testTableNames } from './test-dynamodb.ts';

/** A window between a late write's commit and its retry, for another client's write. */
export interface RetryWindow {
  /** True once the late write is committed. */
  committed(): boolean;
  /** Lets the write's retries through. */
  close(): Promise<void>;
}

/** A store under the slow-answer suite. */
export interface SlowAnswerStore {
  /** What the suite's titles say it runs on. */
  name: string;
  /** The variables of `npm start` on this store (its `DATA_DIR` a temporary folder of the store's). */
  serverVariables: Record<string, string>;
  /**
   * Arms a late answer: the first write matching `slowWrite`, `<Operation> [<TableName>]` (any table when it
   * names none), is committed and answered past the SDK's request timeout, so the SDK sends it again.
   */
  arm(slowWrite: string): Promise<void>;
  /** True once the armed write has come (the arming is spent). */
  fired(): boolean;
  /**
   * Opens a window on the next armed `TransactWriteItems`: its retries wait, once it is committed, until the
   * window closes. Open it before arming.
   */
  openWindow(): Promise<RetryWindow>;
  /** The items of table `id` as stored, sorted by their text (read past any fault). */
  table(id: TableId): Promise<RawItem[]>;
  /**
   * The change records of `petId`, oldest first, as `<reason> <quantity.from>><quantity.to>`; `call` sends an
   * API request to the server on this store.
   */
  changes(petId: number, call: (method: string, path: string) => Promise<ServerAnswer>): Promise<string[]>;
  /** The variables that point an operator tool at the store, and the endpoint the tool then names. */
  tool(): Promise<{ variables: Record<string, string>; endpoint: string }>;
  close(): Promise<void>;
}

/** A change record as the suite compares it. */
const changeLine = ({ reason, quantity }: Pick<InventoryChange, 'reason' | 'quantity'>) =>
  `${reason} ${quantity.from}>${quantity.to}`;

const hook = pathToFileURL(join(import.meta.dirname, 'slow-answer-hook.ts')).href;

/**
 * The embedded store of `npm start` with the slow-answer hook preloaded; its change records are the API's
 * (`GET /inventory/{petId}/history`, written by the stream mappings the local service runs).
 */
export async function embeddedStore(): Promise<SlowAnswerStore> {
  const dir = await temporaryDir('slow-answer-');
  const dataDir = join(dir, 'data');
  const armedFile = join(dir, 'armed');
  const windowFile = join(dir, 'window');
  const committedFile = `${windowFile}.committed`;
  return {
    name: 'the embedded store',
    serverVariables: {
      DATA_DIR: dataDir,
      NODE_OPTIONS: `--import=${hook}`,
      SLOW_ARMED: armedFile,
      SLOW_WINDOW: windowFile,
    },
    arm: (slowWrite) => writeFile(armedFile, slowWrite),
    // The hook removes the file as the write matches.
    fired: () => !existsSync(armedFile),
    async openWindow() {
      await writeFile(windowFile, '');
      return {
        committed: () => existsSync(committedFile),
        async close() {
          await rm(windowFile, { force: true });
          await rm(committedFile, { force: true });
        },
      };
    },
    table: (id) => storeTable(dataDir, id),
    async changes(petId, call) {
      const { status, body } = await call('GET', `/inventory/${petId}/history?limit=1000`);
      if (status !== 200) throw new Error(`history of ${petId}: ${status}`);
      return (body as InventoryChange[]).map(changeLine).reverse();
    },
    async tool() {
      const store = await runningStore(dataDir);
      return { variables: { DATA_DIR: dataDir, ...storeVariables(store) }, endpoint: store.endpoint };
    },
    close: async () => {},
  };
}

/**
 * AWS's DynamoDB Local (Java) behind the fault proxy, `npm start` pointed at the proxy. The local service runs
 * no stream mappings on an external DynamoDB (docs/local-api.md "The change stream"), so the change records
 * are those the service's consumer makes (lib/events/stream-changes.ts) of DynamoDB Local's own stream.
 * @throws when DynamoDB Local does not start (see startDynamoDbLocal).
 */
export async function dynamoDbLocalStore(): Promise<SlowAnswerStore> {
  const dir = await temporaryDir('slow-answer-local-');
  const local = await startDynamoDbLocal();
  const proxy = await startFaultProxy(local.endpoint);
  // DynamoDB Local keeps one database per access key and region: the server, the tools and the reads share them.
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const region = 'us-east-1';
  const client = new DynamoDBClient({ endpoint: local.endpoint, region, credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: local.endpoint, region, credentials });
  const variables = {
    AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
    AWS_REGION: region,
    ...credentialVariables(credentials),
  };
  let armed = false;
  return {
    name: 'DynamoDB Local',
    serverVariables: { ...variables, DATA_DIR: join(dir, 'data') },
    async arm(slowWrite) {
      const [operation, table] = slowWrite.split(' ');
      armed = true;
      proxy.fault = (sent, _, tables) => {
        if (!armed || sent !== operation || (table !== undefined && !tables.includes(table))) return 'pass';
        armed = false;
        return 'late';
      };
    },
    fired: () => !armed,
    async openWindow() {
      const window = proxy.openWindow();
      return { committed: window.committed, close: async () => window.close() };
    },
    async table(id) {
      const items = await scanTable(client, testTableNames[id]);
      return items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    },
    async changes(petId) {
      const records = await streamRecords(streams, testTableNames.inventory);
      return records
        .map((record) => inventoryChangeOf(record as DynamoDBRecord))
        .filter((change) => change?.petId === String(petId))
        .map((change) => changeLine(change as InventoryChange));
    },
    tool: async () => ({ variables, endpoint: proxy.endpoint }),
    async close() {
      client.destroy();
      streams.destroy();
      await proxy.close();
      await local.close();
    },
  };
}
