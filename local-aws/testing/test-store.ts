/**
 * The embedded DynamoDB of a suite (dynamodb/dynamodb.ts), with a raw client on it: in memory, on a
 * data folder, or restartable on a fixed port, so that a test can stop it and start it again under what uses it.
 * The one way to start a store in either package's tests; the tables are the suite's own: `tables` creates them
 * (a suite's own, as the package's fixture tables; README.md "Tests").
 */
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { StoreCredentials } from '../common/store-credentials.ts';
import type { ChangeStream } from '../dynamodb/change-stream.ts';
import { inMemory, type LocalDynamoDb, startDynamoDb } from '../dynamodb/dynamodb.ts';
import { temporaryDir } from './temporary-dirs.ts';

/** A running test store and a raw client on it. */
export interface TestStore {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** The port of {@link endpoint}. */
  port: number;
  /** The credentials it accepts (its store's own). */
  credentials: StoreCredentials;
  /** A low-level client on {@link endpoint}, signing with {@link credentials}. */
  client: DynamoDBClient;
  /** The change stream of its streamed tables, as served now (a new one after {@link start}). @throws when stopped */
  readonly changeStream: ChangeStream;
  /** Stops it (nothing listens on {@link endpoint} afterwards); does nothing when it is stopped already. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the data it had. @throws when it was not started `restartable` */
  start(): Promise<void>;
  /** Destroys the client, stops it and removes the temporary data folder of a `restartable` one. */
  close(): Promise<void>;
}

/** A low-level DynamoDB client on `endpoint` signing with `credentials` (the embedded store's own). */
export function dynamoDbClient(endpoint: string, credentials: StoreCredentials): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
}

/**
 * Creates a table and waits until it is ACTIVE. dynalite answers CreateTable while the table is still CREATING,
 * even with `createTableMs: 0`, and refuses its items until then (ResourceNotFoundException): polls after 50 ms,
 * backing off to 1 s, for at most 60 s. @throws what CreateTable throws, or when the table is not ACTIVE in time
 */
export async function createActiveTable(
  client: DynamoDBClient,
  input: CreateTableCommandInput,
): Promise<void> {
  await client.send(new CreateTableCommand(input));
  const waiter = { client, maxWaitTime: 60, minDelay: 0.05, maxDelay: 1 };
  await waitUntilTableExists(waiter, { TableName: input.TableName });
}

/** A free TCP port of 127.0.0.1 (free when asked: another process may take it before it is used). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the embedded DynamoDB on a free port of 127.0.0.1: in memory, on the data folder `dataDir` (left in
 * place by `close`), or with `restartable` on a port fixed at the start (and a temporary data folder unless
 * `dataDir` is given), so that a test can stop it and start it again. `tables`, when given, creates the suite's
 * tables with the store's client before it is returned.
 */
export async function startTestStore(
  options: {
    restartable?: boolean;
    dataDir?: string;
    tables?: (client: DynamoDBClient) => Promise<unknown>;
  } = {},
): Promise<TestStore> {
  const temporary = options.restartable && options.dataDir === undefined;
  const dataDir = options.dataDir ?? (temporary ? await temporaryDir('test-store-') : inMemory);
  const port = options.restartable ? await freePort() : 0;
  let db: LocalDynamoDb | undefined = await startDynamoDb({ dataDir, port });
  const { endpoint, credentials } = db;
  const client = dynamoDbClient(endpoint, credentials);
  await options.tables?.(client);
  const stop = async () => {
    await db?.close();
    db = undefined;
  };
  return {
    endpoint,
    port: Number(new URL(endpoint).port),
    credentials,
    client,
    get changeStream() {
      if (!db?.changeStream) throw new Error('this test store is stopped');
      return db.changeStream;
    },
    stop,
    async start() {
      if (!options.restartable) throw new Error('this test store was not started restartable');
      db ??= await startDynamoDb({ dataDir, port });
    },
    async close() {
      client.destroy();
      await stop();
      if (temporary) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
