/** The whole service on one machine: store, tables, first-start data and the local API (docs/local-api.md "What it serves"). */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, DynamoDBClient, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
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
import { createEngine, integrationTimeoutMs } from '../local-aws/apigateway/gateway.ts';
import { createApiServer } from '../local-aws/apigateway/http-server.ts';
import { requestGate } from '../local-aws/apigateway/request-gate.ts';
import { credentialVariables } from '../local-aws/common/store-credentials.ts';
import {
  inMemory,
  type LocalDynamoDb,
  localTableNames,
  startDynamoDb,
} from '../local-aws/dynamodb/dynamodb.ts';
import { LambdaFunction } from '../local-aws/lambda/lambda-runtime.ts';
import { type LocalAws, prepareLocalAws } from '../local-aws/local-aws.ts';
import {
  ensureCheckpoint,
  type RunningStreamMapping,
  type StreamFailureRecord,
  startStreamMapping,
  streamMappingModels,
} from '../local-aws/mappings/stream-mapping.ts';
import { apiModel, functionModel, type ModelOptions } from '../local-aws/template/api-model.ts';
import { localTableName, type ServedStack, sourceOf } from './assembly.ts';
import { withApiReference } from './docs-route.ts';
import { localApiKey } from './local-key.ts';
import { localAwsDefaults, localEnvironment } from './settings.ts';

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
}

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
   * (an on-failure destination's record, for instance: local-aws.ts).
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

/** The time a shutdown leaves between the last function's end and the drain's cut, for its answer to leave. */
const answerMarginMs = 1000;

/**
 * Variables of this process that the functions get over the template's: the AWS SDK's region and local
 * credentials, the Powertools log level and metrics switch (so a developer or a test can quiet or raise
 * the functions' logs), the webhook retry delays and the breaker's period (to watch a retry or a subscription
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
 * `AWS_ENDPOINT_URL_SQS`, credential and table-name variables (the operator tools and tests read them): one
 * local service per process. The template's buses, rules, queues and queue mappings run beside the API
 * (docs/local-api.md "Events and queues"), and so do its mappings on the tables' streams, on the embedded
 * store's change stream (docs/local-api.md "The change stream").
 * @throws when the ports are taken, DynamoDB cannot be reached, or the template has a bus, rule or queue not
 *   served locally.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  if (options.apiKey !== undefined) checkApiKey(options.apiKey);
  localAwsDefaults();
  let db: LocalDynamoDb | undefined;
  if (!process.env.AWS_ENDPOINT_URL_DYNAMODB) {
    db = await startDynamoDb({ dataDir: options.dataDir });
    process.env.AWS_ENDPOINT_URL_DYNAMODB = db.endpoint;
    // The functions (hostVariables below) and this process sign with the only credentials the store accepts.
    Object.assign(process.env, credentialVariables(db.credentials));
    delete process.env.AWS_SESSION_TOKEN;
  }
  // The endpoint accepts what this process and the functions sign with: the store's credentials, or the shell's.
  const credentials = await new DynamoDBClient({}).config.credentials();
  const aws: LocalAws = await prepareLocalAws({
    template: options.stack.template,
    credentials,
    ...(db && options.dataDir !== inMemory ? { dataDir: options.dataDir } : {}),
    ...(db?.levelDb ? { levelDb: db.levelDb } : {}),
  }).catch(async (error: unknown) => {
    await db?.close();
    throw error;
  });
  Object.assign(process.env, aws.variables);
  const names = localTableNames();
  for (const id of Object.keys(tables) as TableId[]) process.env[tables[id].env] = names[id];
  // The deprecated operation's dates, as the stack sets them on its function (staging's settings).
  process.env[deprecationEnv.deprecatedAt] = localEnvironment.deprecation.deprecatedAt;
  process.env[deprecationEnv.sunsetAt] = localEnvironment.deprecation.sunsetAt;

  // Listen before creating anything: a taken port must fail before a first start creates the tables and a
  // key that would then never be shown (the next start is not a first start). Requests wait at the gate until
  // the tables, the demo data and the key exist.
  const hostValues = hostVariables.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : []));
  const modelOptions: ModelOptions = {
    assemblyDir: options.stack.assemblyDir,
    tableName: localTableName(names),
    overrides: {
      ...Object.fromEntries(hostValues),
      AWS_ENDPOINT_URL_DYNAMODB: process.env.AWS_ENDPOINT_URL_DYNAMODB as string,
      ...aws.variables,
      // Webhooks to this machine's receivers (docs/contract.md "History and events": locally http://127.0.0.1).
      [eventsEnv.urlPolicy]: 'local',
    },
    resourceValue: aws.resourceValue,
    ...(options.stack.sources ? { sourceOf } : {}),
  };
  const model = apiModel(options.stack.template, modelOptions);
  // The stream mappings' functions, with the same environment overrides as the API's.
  const mappingModels = streamMappingModels(options.stack.template, modelOptions.tableName);
  const mappingFunctions = new Map(
    [...new Set(mappingModels.map((mapping) => mapping.functionId))].map((functionId) => [
      functionId,
      new LambdaFunction(functionModel(functionId, options.stack.template.Resources, modelOptions)),
    ]),
  );
  const closeMappingFunctions = () =>
    Promise.all([...mappingFunctions.values()].map((lambda) => lambda.close()));
  const engine = createEngine(model);
  const gate = requestGate(
    withApiReference((request, response) => void engine.listener(request, response), `/${model.stage}`),
  );
  const server = createApiServer(gate.listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  }).catch(async (error: unknown) => {
    await engine.close();
    await aws.close();
    await closeMappingFunctions();
    await db?.close();
    throw error;
  });

  // The mappings' starting checkpoints exist before the tables are created and seeded.
  const stream = db?.changeStream;
  if (stream) for (const mapping of mappingModels) await ensureCheckpoint(mapping, stream);
  const client = toDocumentClient(new DynamoDBClient({}));
  const created = await ensureTables(client, names);
  if (db) await enableStreams(client, names);
  const firstStart = created.includes('inventory');
  const seeded =
    firstStart && options.seed !== false
      ? await importInventoryFile(demoInventoryFile, inventoryStore(client, names.inventory))
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

  const { port } = server.address() as AddressInfo;
  gate.open();
  const events = options.events !== false;
  if (events) aws.start(modelOptions);
  // Discarded stream records' failure records go to the mapping's on-failure queue (a local queue).
  const mappings = events
    ? startMappings(mappingModels, mappingFunctions, db, async (destination, record) => {
        if (destination) await aws.sendToQueue(destination, JSON.stringify(record));
      })
    : [];
  return {
    // An IPv6 address (HOST=::1) is written in brackets, or the URL would not parse.
    baseUrl: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/${model.stage}`,
    ...(apiKey ? { apiKey } : {}),
    firstStart,
    seeded,
    awsEndpoint: aws.endpoint,
    sendToQueue: (queue, body) => aws.sendToQueue(queue, body),
    recycle: () => {
      engine.recycle();
      aws.recycle();
      for (const lambda of mappingFunctions.values()) lambda.recycle();
    },
    async close() {
      // The drain starts first, so that the connections still open get `Connection: close` on their answers;
      // then the server stops accepting and closes the idle ones.
      // No function runs at the drain's cut: each started ends (or times out) a margin before it.
      const deadline = Date.now() + integrationTimeoutMs - answerMarginMs;
      engine.endBy(deadline);
      aws.endBy(deadline);
      // The mappings stop polling; a batch being invoked finishes and is checkpointed (stream-mapping.ts).
      const mappingsStopped = Promise.all(mappings.map((mapping) => mapping.stop()));
      const drained = gate.drain(integrationTimeoutMs);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await drained;
      server.closeAllConnections();
      await closed;
      await mappingsStopped;
      await closeMappingFunctions();
      await engine.close();
      await aws.close();
      for (const name of Object.keys(aws.variables)) delete process.env[name];
      await db?.close();
      // The endpoint of a closed embedded store must not send a later service in this process to it.
      if (db) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
    },
  };
}

/**
 * Starts each stream mapping of the template on the embedded store's change stream; `onFailure` takes the
 * failure records of discarded records (`destination`: the logical id of the on-failure destination). A store
 * served by another process (`AWS_ENDPOINT_URL_DYNAMODB` set) has no change stream here: the mappings are not
 * run, and a line says so.
 */
function startMappings(
  models: ReturnType<typeof streamMappingModels>,
  functions: Map<string, LambdaFunction>,
  db: LocalDynamoDb | undefined,
  onFailure: (destination: string | undefined, record: StreamFailureRecord) => Promise<void> | void,
): RunningStreamMapping[] {
  if (models.length === 0) return [];
  const stream = db?.changeStream;
  if (!stream) {
    process.stderr.write(
      `Stream mappings not run (${models.map((m) => m.logicalId).join(', ')}): the DynamoDB at AWS_ENDPOINT_URL_DYNAMODB has no local change stream\n`,
    );
    return [];
  }
  return models.map((model) =>
    startStreamMapping(model, {
      stream,
      invoke: (event) => (functions.get(model.functionId) as LambdaFunction).invoke(event),
      onFailure,
    }),
  );
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
