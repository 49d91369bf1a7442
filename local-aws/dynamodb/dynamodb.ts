import { chmod, mkdir, readdir } from 'node:fs/promises';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { advertisedEndpoint, advertiseEndpoint, withdrawEndpoint } from '../common/endpoint-file.ts';
import type { LevelStore } from '../common/level-store.ts';
import {
  dataFolderCredentials,
  newStoreCredentials,
  requireSignature,
  type StoreCredentials,
} from '../common/store-credentials.ts';
import type { ChangeStream } from './change-stream.ts';
import { changeStreamOf, embeddedDynalite, levelDbOf } from './dynalite-additions.ts';

/** The data folder (`dataDir`) that keeps nothing: the store lives in memory and dies with the process. */
export const inMemory = ':memory:';

/** A running embedded DynamoDB. */
export interface LocalDynamoDb {
  /** `http://host:port` of its DynamoDB API. */
  endpoint: string;
  /** The only credentials it accepts requests signed with (store-credentials.ts). */
  credentials: StoreCredentials;
  /**
   * The change stream of the tables with a stream (change-stream.ts), when this process serves the store;
   * undefined for a store another process serves.
   */
  changeStream?: ChangeStream;
  /**
   * The store's own database (in memory for a store in memory), where the local queues can keep their
   * messages (sqs/queue-journal.ts), when this process serves the store; undefined for a store another
   * process serves.
   */
  levelDb?: LevelStore;
  /** Stops serving and flushes the store to disk; removes the endpoint file. */
  close(): Promise<void>;
}

/** Where a data folder's embedded store lives. */
function levelDbPath(dataDir: string) {
  return join(dataDir, 'dynamodb');
}

/** Mode of the data folder and every folder in it: its user only. */
const privateFolderMode = 0o700;
/** Mode of every file in the data folder: its user only. */
const privateFileMode = 0o600;

/**
 * Makes the data folder private: creates it 0700 when missing, and brings a folder made by an older version
 * (0755, files 0644) to folders 0700 and files 0600. Sets the process's umask to 077 so that every file LevelDB
 * creates later (logs, tables, compactions) is 0600 too: the local server, the SAM DynamoDB and the tools
 * create nothing that others should read.
 */
async function makePrivate(dataDir: string): Promise<void> {
  process.umask(0o077);
  await mkdir(dataDir, { recursive: true, mode: privateFolderMode });
  await chmod(dataDir, privateFolderMode);
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) await chmod(path, privateFolderMode);
    else if (entry.isFile()) await chmod(path, privateFileMode);
  }
}

/** dynalite's answer to a browser: HTTP 403 in DynamoDB's error format, with no CORS header. */
const browserRefusal = JSON.stringify({
  __type: 'com.amazon.coral.service#AccessDeniedException',
  message: 'the local DynamoDB refuses requests from web pages (Origin header or CORS preflight)',
});

/**
 * Puts a guard in front of dynalite's request handler (its server's one `request` listener): a request with
 * an `Origin` header or an OPTIONS preflight is 403 without any `Access-Control-*` header (README.md
 * "The embedded DynamoDB").
 */
export function refuseBrowsers(server: Server): void {
  const handlers = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request, response) => {
    if (request.headers.origin !== undefined || request.method === 'OPTIONS') {
      request.resume();
      response
        .writeHead(403, {
          'Content-Type': 'application/x-amz-json-1.0',
          'Content-Length': Buffer.byteLength(browserRefusal),
        })
        .end(browserRefusal);
      return;
    }
    for (const handler of handlers) handler(request, response);
  });
}

/** {@link startDynamoDb}'s refusal of a data folder another process serves (its LevelDB is locked). */
export class DataFolderInUseError extends Error {
  /** The data folder asked for. */
  readonly dataDir: string;
  /** The URL of the DynamoDB that serves it (its `endpoint` file). */
  readonly endpoint: string;

  constructor(dataDir: string, endpoint: string) {
    super(
      `the data folder ${dataDir} is in use by the DynamoDB at ${endpoint}: stop it or use another data folder`,
    );
    this.name = 'DataFolderInUseError';
    this.dataDir = dataDir;
    this.endpoint = endpoint;
  }
}

/**
 * Starts dynalite on `host:port` (port 0: any free port), storing under `<dataDir>/dynamodb`, or in memory
 * when `dataDir` is {@link inMemory}. It accepts only requests signed with the store's own credentials: those
 * of `<dataDir>/credentials` (generated on a first start), or fresh ones for a store in memory.
 * @throws DataFolderInUseError when another process serves the folder (its LevelDB is locked; starting anyway
 *   would also overwrite that process's endpoint file); Error when the port is taken or the folder cannot be
 *   created.
 */
export async function startDynamoDb(options: {
  dataDir: string;
  port?: number;
  host?: string;
}): Promise<LocalDynamoDb> {
  const { dataDir, port = 0, host = '127.0.0.1' } = options;
  const persistent = dataDir !== inMemory;
  const running = persistent ? await advertisedEndpoint(dataDir, 'endpoint') : undefined;
  if (running) throw new DataFolderInUseError(dataDir, running);
  if (persistent) await makePrivate(dataDir);
  const credentials = persistent ? await dataFolderCredentials(dataDir) : newStoreCredentials();
  const server = embeddedDynalite({
    ...(persistent ? { path: levelDbPath(dataDir) } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  requireSignature(server, credentials);
  // Outermost: a browser's request is refused before its signature is read.
  refuseBrowsers(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const endpoint = `http://${host}:${(server.address() as AddressInfo).port}`;
  if (persistent) await advertiseEndpoint(dataDir, 'endpoint', endpoint);
  return {
    endpoint,
    credentials,
    changeStream: changeStreamOf(server),
    levelDb: levelDbOf(server),
    async close() {
      if (persistent) await withdrawEndpoint(dataDir, 'endpoint');
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/**
 * The DynamoDB endpoint serving `dataDir` and its credentials: the running process that advertises it in
 * `<dataDir>/endpoint` when it answers, else a new embedded server started here (close it when done).
 */
export async function connectLocalDynamoDb(dataDir: string): Promise<LocalDynamoDb> {
  const endpoint = await advertisedEndpoint(dataDir, 'endpoint');
  if (endpoint) return { endpoint, credentials: await dataFolderCredentials(dataDir), close: async () => {} };
  return startDynamoDb({ dataDir });
}
