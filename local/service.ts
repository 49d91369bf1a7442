/** The whole service on one machine: store, tables, first-start data and the local API (docs/local-api.md "What it serves"). */
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, DynamoDBClient, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { DataFolderInUseError, inMemory, startLocalAws } from '@pet-store/local-aws';
import type { ThrottleSettings } from '#infra/settings.ts';
import { importInventoryFile } from '#lib/admin/inventory-writer.ts';
import { createKey } from '#lib/admin/keys.ts';
import { ensureTables } from '#lib/admin/tables.ts';
import { scopes } from '#lib/api.ts';
import { apiKeyDigest } from '#lib/auth/api-key.ts';
import { bearerToken } from '#lib/auth/authorize.ts';
import { type ApiKeyRecord, keyStore } from '#lib/auth/key-store.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { deprecationEnv } from '#lib/pets/deprecation.ts';
import { type TableDefinition, type TableId, tables } from '#lib/tables.ts';
import { logAccess } from './access-log.ts';
import { localTableName, type ServedStack, sourceOf } from './assembly.ts';
import { withApiReference } from './docs-route.ts';
import { serviceErrorBody } from './error-body.ts';
import { localApiKey } from './local-key.ts';
import { localAwsDefaults, localEnvironment, localTableNames } from './settings.ts';
import type { StartStep } from './start-progress.ts';

/** The demo inventory seeded on first start: 24 pets, all three statuses, petIds beyond 2^53. */
export const demoInventoryFile = fileURLToPath(new URL('demo-inventory.csv', import.meta.url));

/** Name of the key created by the local server. */
const localKeyName = 'local';

/** How to start the local service. */
export interface LocalServiceOptions {
  /** Data folder, or `:memory:`. Ignored when `AWS_ENDPOINT_URL_DYNAMODB` is set. */
  dataDir: string;
  /** HTTP port (0: any free port). */
  port: number;
  host: string;
  /** A key to accept (stored hashed under the name `local`); without it one is generated on first start. */
  apiKey?: string;
  /** Seed the demo inventory when the tables are new (default true). */
  seed?: boolean;
  /** The synthesized stack to serve (assembly.ts). */
  stack: ServedStack;
  /** The throttle stored with the key the service accepts or creates; default: the environment's default. */
  keyThrottle?: ThrottleSettings;
  /**
   * Run the event path (default true): the stream mappings, the buses and rules, the queue mappings. Without it
   * the API answers as usual, writes reach no function of the event path, and the local EventBridge and SQS
   * endpoint answers every request 503 (docs/local-api.md "Events and queues").
   */
  events?: boolean;
  /** Runs each step of the start, to show what it is doing (local/start-progress.ts); default: runs it. */
  step?: StartStep;
}

/** Runs a step of the start without showing it. */
const silently: StartStep = (_name, work) => work();

/** A running local service. */
export interface LocalService {
  /** `http://host:port/v1`. */
  baseUrl: string;
  /**
   * The key given in the options; else the data folder's `local` key while it is neither revoked nor expired
   * (derived from the store's secret: local/local-key.ts), or, with a store in memory or an external
   * DynamoDB, the key generated on a first start; undefined otherwise.
   */
  apiKey?: string;
  /** True when this start created the tables (and so seeded them). */
  firstStart: boolean;
  /** Entries seeded on this start. */
  seeded: number;
  /**
   * Stops accepting connections and closes the idle ones, answers the requests in flight (for at most API
   * Gateway's 29 s integration timeout) with `Connection: close`, closes the connections, then flushes and
   * closes the embedded DynamoDB (docs/contract.md "Bounded cost, clean shutdown").
   */
  close(): Promise<void>;
  /** Retires every function's execution environments: the next invocations import the code afresh. */
  recycle(): void;
  /** `http://127.0.0.1:port` of the local EventBridge and SQS endpoint (also in `<dataDir>/aws-endpoint`). */
  awsEndpoint: string;
  /**
   * Sends `body` to the template's queue with this logical id, name or ARN; resolves with the message id
   * (an on-failure destination's record, for instance: local-aws/events-and-queues.ts).
   * @throws Error when the template has no such queue
   */
  sendToQueue(queue: string, body: string): Promise<string>;
}

/** Fewest characters of an `API_KEY`: a shorter value is too easy to guess (the generated keys have 47). */
const minApiKeyLength = 32;

/**
 * Refuses an `API_KEY` that could never be sent (not an RFC 6750 bearer token) or is too short to be secret.
 * @throws Error naming the rule.
 */
function checkApiKey(apiKey: string): void {
  if (apiKey.length < minApiKeyLength || bearerToken(`Bearer ${apiKey}`) !== apiKey) {
    throw new Error(
      `API_KEY must be at least ${minApiKeyLength} characters of letters, digits and -._~+/ (a bearer token); ` +
        'leave it unset to get a generated key, or make one with `npm run keys -- create <name>`',
    );
  }
}

/** True when `record` is a key that is neither revoked nor expired at `now`. */
function usable(record: ApiKeyRecord | undefined, now: Date): boolean {
  if (!record || record.revokedAt !== undefined) return false;
  return record.expiresAt === undefined || Date.parse(record.expiresAt) > now.getTime();
}

/** Stores the digest of `apiKey` under the local name, with every scope, unless it is already stored. */
async function acceptKey(
  keys: ReturnType<typeof keyStore>,
  apiKey: string,
  throttle: ThrottleSettings | undefined,
): Promise<void> {
  const keyDigest = apiKeyDigest(apiKey);
  if (await keys.get(keyDigest)) return;
  await keys.put({
    keyDigest,
    name: localKeyName,
    createdAt: new Date().toISOString(),
    scopes: [...scopes],
    ...throttle,
  });
}

/**
 * Variables of this process that the functions get over the template's: the AWS SDK's region and local
 * credentials, the Powertools log level and metrics switch (so a developer or a test can quiet or raise
 * the functions' logs), the webhook retry delays and the breaker's period (to watch a retry or an endpoint
 * disabled without waiting hours or days); a variable unset
 * here keeps the template's value.
 */
const hostVariables = [
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'POWERTOOLS_LOG_LEVEL',
  'POWERTOOLS_METRICS_DISABLED',
  eventsEnv.retryDelays,
  eventsEnv.disableAfterSeconds,
];

/**
 * Starts the local service. Sets the process's `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_EVENTBRIDGE`,
 * `AWS_ENDPOINT_URL_SQS`, credential and table-name variables (the operator tools and tests read them; the
 * served stack's are put back as they were on close): one local service per process. The template's buses, rules, queues and queue mappings run beside the API
 * (docs/local-api.md "Events and queues"), and so do its mappings on the tables' streams, on the embedded
 * store's change stream (docs/local-api.md "The change stream").
 * @throws when the ports are taken, DynamoDB cannot be reached, or the template has a bus, rule or queue not
 *   served locally.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  if (options.apiKey !== undefined) checkApiKey(options.apiKey);
  const step = options.step ?? silently;
  localAwsDefaults();
  const names = localTableNames();
  for (const id of Object.keys(tables) as TableId[]) process.env[tables[id].env] = names[id];
  // The deprecated operation's dates, as the stack sets them on its function (staging's settings).
  process.env[deprecationEnv.deprecatedAt] = localEnvironment.deprecation.deprecatedAt;
  process.env[deprecationEnv.sunsetAt] = localEnvironment.deprecation.sunsetAt;

  // Listen before creating anything: a taken port must fail before a first start creates the tables and a
  // key that would then never be shown (the next start is not a first start). Requests wait at the gate until
  // the tables, the demo data and the key exist.
  const served = await startLocalAws({
    template: options.stack.template,
    assemblyDir: options.stack.assemblyDir,
    ...(options.stack.sources ? { functionSource: sourceOf } : {}),
    tableName: localTableName(names),
    dataDir: options.dataDir,
    ...(process.env.AWS_ENDPOINT_URL_DYNAMODB
      ? { dynamoDbEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB }
      : {}),
    port: options.port,
    host: options.host,
    environment: () => ({
      ...Object.fromEntries(
        hostVariables.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
      ),
      // Webhooks to this machine's receivers (docs/contract.md "History and events": locally http://127.0.0.1).
      [eventsEnv.urlPolicy]: 'local',
    }),
    listener: withApiReference,
    errorBody: serviceErrorBody,
    ...(options.events === false ? { events: false } : {}),
    onAccess: logAccess,
    step,
  }).catch((error: unknown) => {
    // The local AWS names the folder and its server; `npm start` says what the developer may have left running.
    throw error instanceof DataFolderInUseError
      ? new Error(
          `the data folder ${error.dataDir} is in use by the DynamoDB at ${error.endpoint} (is npm start already running?): stop it or set another DATA_DIR`,
        )
      : error;
  });
  const restoreEnvironment = setEnvironment(served.variables, served.dynamoDb !== undefined);
  const db = served.dynamoDb;
  const client = toDocumentClient(new DynamoDBClient({}));
  const created = await step('creating the tables', async () => {
    const made = await ensureTables(client, names);
    if (db) await enableStreams(client, names);
    return made;
  });
  const firstStart = created.includes('inventory');
  const seeded =
    firstStart && options.seed !== false
      ? await step('seeding the demo inventory', () =>
          importInventoryFile(demoInventoryFile, inventoryStore(client, names.inventory)),
        )
      : 0;
  const keys = keyStore(client, names.apiKeys);
  // A data folder's own store derives its local key from its secret, so every start can show it again.
  const derivedKey = db && options.dataDir !== inMemory ? localApiKey(db.credentials) : undefined;
  let apiKey = options.apiKey;
  if (apiKey) await acceptKey(keys, apiKey, options.keyThrottle);
  else if (derivedKey && created.includes('apiKeys')) {
    apiKey = derivedKey;
    await acceptKey(keys, apiKey, options.keyThrottle);
  } else if (derivedKey) {
    if (usable(await keys.get(apiKeyDigest(derivedKey)), new Date())) apiKey = derivedKey;
  } else if (created.includes('apiKeys')) {
    apiKey = await createKey(keys, {
      name: localKeyName,
      now: new Date(),
      scopes: [...scopes],
      ...(options.keyThrottle ? { throttle: options.keyThrottle } : {}),
    });
  }
  client.destroy();
  await step('starting the event functions', async () => served.open());
  return {
    baseUrl: served.baseUrl,
    ...(apiKey ? { apiKey } : {}),
    firstStart,
    seeded,
    awsEndpoint: served.awsEndpoint,
    sendToQueue: (queue, body) => served.sendToQueue(queue, body),
    recycle: () => served.recycle(),
    close: async () => {
      await served.close();
      restoreEnvironment();
    },
  };
}

/**
 * Sets the served stack's variables in this process's environment (the operator tools, the seeding and the
 * tests read them) and, with the embedded store's long-term credentials (`withoutSessionToken`), unsets
 * `AWS_SESSION_TOKEN`.
 * @returns a function that puts back each variable as it was.
 */
function setEnvironment(variables: Record<string, string>, withoutSessionToken: boolean): () => void {
  const names = [...Object.keys(variables), ...(withoutSessionToken ? ['AWS_SESSION_TOKEN'] : [])];
  const before = new Map(names.map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  if (withoutSessionToken) delete process.env.AWS_SESSION_TOKEN;
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/**
 * Turns on the stream of each table of lib/tables.ts that has one (`stream`) but was created without it, by a
 * version before streams, in the embedded store (docs/local-api.md "The change stream"): its records start
 * with the next write.
 * @returns the ids of the tables whose stream it turned on.
 */
export async function enableStreams(
  client: DynamoDBClient,
  names: Record<TableId, string>,
): Promise<TableId[]> {
  const enabled: TableId[] = [];
  for (const id of Object.keys(tables) as TableId[]) {
    if (!(tables[id] as TableDefinition).stream) continue;
    const { Table } = await client.send(new DescribeTableCommand({ TableName: names[id] }));
    if (Table?.StreamSpecification?.StreamEnabled) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: names[id],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    enabled.push(id);
  }
  return enabled;
}
