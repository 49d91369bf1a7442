/**
 * @module A synthesized template served on one machine: the embedded DynamoDB (or one the caller names), the
 * API's engine behind a request gate, the buses, queues and their mappings, and the mappings on the tables'
 * streams (README.md). The composer fills the tables between {@link startLocalAws} and
 * {@link ServedTemplate.open}. It writes no process environment: it returns the variables a caller sets
 * ({@link ServedTemplate.variables}), and its functions get them in their own, so that one process can serve
 * several templates side by side.
 */
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type AccessLogContext, createEngine, integrationTimeoutMs } from './apigateway/gateway.ts';
import type { ErrorBodyRenderer } from './apigateway/gateway-response-render.ts';
import { createApiServer } from './apigateway/http-server.ts';
import { requestGate } from './apigateway/request-gate.ts';
import { credentialVariables } from './common/store-credentials.ts';
import { inMemory, type LocalDynamoDb, startDynamoDb } from './dynamodb/dynamodb.ts';
import { type EventsAndQueues, prepareEventsAndQueues } from './events-and-queues.ts';
import { LambdaFunctions } from './lambda/lambda-functions.ts';
import {
  ensureCheckpoint,
  type RunningStreamMapping,
  type StreamFailureRecord,
  startStreamMapping,
  streamMappingModels,
} from './mappings/stream-mapping.ts';
import { apiModel, functionModel, type ModelOptions, type Template } from './template/api-model.ts';

/** How to serve a template. */
export interface ServeOptions {
  template: Template;
  /** The cloud assembly folder: the functions' asset paths are relative to it. */
  assemblyDir: string;
  /** The TypeScript entry (absolute) to run for a function, by logical id; undefined: its synthesized bundle. */
  functionSource?: (logicalId: string) => string | undefined;
  /** The local name of a table of the template, by logical id. @throws for a table it does not serve */
  tableName: (logicalId: string) => string;
  /** Data folder of the embedded DynamoDB, or `:memory:`. Ignored with {@link ServeOptions.dynamoDbEndpoint}. */
  dataDir: string;
  /**
   * The endpoint of a DynamoDB served elsewhere, to use instead of starting the embedded one: this process's
   * credentials sign for it, and its tables' streams are not run.
   */
  dynamoDbEndpoint?: string;
  /** HTTP port of the API (0: any free port). */
  port: number;
  host: string;
  /**
   * Variables every function gets over the template's `Environment.Variables` (the process's own region, for
   * instance); the served {@link ServedTemplate.variables} go over these, and with the embedded store a
   * session token is left out (its credentials have none).
   */
  environment?: () => Record<string, string>;
  /** Wraps the API's request listener (to serve other paths beside `/<stage>`, for instance). */
  listener?: (api: RequestListener, stage: string) => RequestListener;
  /** The body of the errors no gateway response covers (default: API Gateway's `{"message": ...}`). */
  errorBody?: ErrorBodyRenderer;
  /**
   * Run the event path once open (default true): the stream mappings, the buses and rules, the queue
   * mappings. Without it the API answers as usual and the EventBridge and SQS endpoint answers 503.
   */
  events?: boolean;
  /** Called once per API request answered (or abandoned by its client), with its access log variables. */
  onAccess?: (context: AccessLogContext) => void;
  /**
   * Runs each step of the start (`starting DynamoDB`, `starting the API`), to show
   * what it is doing and for how long; default: runs it.
   */
  step?: <T>(name: string, work: () => Promise<T>) => Promise<T>;
}

/** Runs a step of the start without showing it. */
const silently = <T>(_name: string, work: () => Promise<T>): Promise<T> => work();

/** A template being served: requests wait at the gate until {@link ServedTemplate.open}. */
export interface ServedTemplate {
  /** `http://host:port/<stage>`. */
  baseUrl: string;
  /** The embedded DynamoDB this process serves; undefined with {@link ServeOptions.dynamoDbEndpoint}. */
  dynamoDb?: LocalDynamoDb;
  /** `http://127.0.0.1:port` of the local EventBridge and SQS endpoint (also in `<dataDir>/aws-endpoint`). */
  eventsAndQueuesEndpoint: string;
  /**
   * What the caller's own AWS SDK clients need to reach this template, and what its functions get:
   * `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_EVENTBRIDGE`, `AWS_ENDPOINT_URL_SQS` and, with the embedded
   * store, its credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, long-term: a caller that sets them
   * unsets `AWS_SESSION_TOKEN`). Nothing is set in this process's environment.
   */
  variables: Record<string, string>;
  /** Answers the requests waiting at the gate and the next ones; starts the event path (unless disabled). */
  open(): void;
  /**
   * Sends `body` to the template's queue with this logical id, name or ARN; resolves with the message id.
   * @throws Error when the template has no such queue
   */
  sendToQueue(queue: string, body: string): Promise<string>;
  /** Retires every function's execution environments: the next invocations import the code afresh. */
  recycle(): void;
  /**
   * Stops accepting connections and closes the idle ones, answers the requests in flight (for at most API
   * Gateway's 29 s integration timeout) with `Connection: close`, stops the mappings and closes the functions,
   * the endpoint and the embedded DynamoDB.
   */
  close(): Promise<void>;
}

/** The time a shutdown leaves between the last function's end and the drain's cut, for its answer to leave. */
const answerMarginMs = 1000;

/**
 * Starts serving `options.template`, and returns the variables a caller sets to reach it (it sets none in
 * this process: two templates can be served side by side). The API listens at once (a taken port fails before
 * anything is created); the stream mappings' starting checkpoints exist before it returns, so that the
 * composer's first writes reach them.
 * @throws when the ports are taken, DynamoDB cannot be reached, or the template has a resource not served
 *   locally.
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { startLocalAws } from 'local-aws';
 *
 * const served = await startLocalAws({
 *   template: JSON.parse(readFileSync('cdk.out/Stack.template.json', 'utf8')),
 *   assemblyDir: 'cdk.out',
 *   tableName: (logicalId) => logicalId,
 *   dataDir: ':memory:',
 *   port: 0,
 *   host: '127.0.0.1',
 *   environment: () => ({ AWS_REGION: 'us-east-1' }), // the functions' SDK clients need a region
 * });
 * const { AWS_ENDPOINT_URL_DYNAMODB, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY } = served.variables;
 * const dynamoDb = new DynamoDBClient({
 *   endpoint: AWS_ENDPOINT_URL_DYNAMODB,
 *   credentials: { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY },
 * });
 * // ... create the template's tables with it, then answer the requests:
 * served.open();
 * await fetch(`${served.baseUrl}/items`);
 * await served.close();
 * ```
 */
export async function startLocalAws(options: ServeOptions): Promise<ServedTemplate> {
  const step = options.step ?? silently;
  let db: LocalDynamoDb | undefined;
  if (options.dynamoDbEndpoint === undefined) {
    db = await step('starting DynamoDB', () => startDynamoDb({ dataDir: options.dataDir }));
  }
  const dynamoDbEndpoint = db?.endpoint ?? (options.dynamoDbEndpoint as string);
  // The endpoint accepts what the caller and the functions sign with: the store's credentials, or the process's.
  const credentials = db?.credentials ?? (await new DynamoDBClient({}).config.credentials());
  const aws: EventsAndQueues = await prepareEventsAndQueues({
    template: options.template,
    credentials,
    ...(db && options.dataDir !== inMemory ? { dataDir: options.dataDir } : {}),
    ...(db?.levelDb ? { levelDb: db.levelDb } : {}),
  }).catch(async (error: unknown) => {
    await db?.close();
    throw error;
  });
  const variables: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamoDbEndpoint,
    ...(db ? credentialVariables(db.credentials) : {}),
    ...aws.variables,
  };
  const { AWS_SESSION_TOKEN: sessionToken, ...withoutToken } = options.environment?.() ?? {};

  const modelOptions: ModelOptions = {
    assemblyDir: options.assemblyDir,
    tableName: options.tableName,
    // The functions sign with the only credentials the embedded store accepts, which carry no session token.
    overrides: {
      ...withoutToken,
      ...(db || sessionToken === undefined ? {} : { AWS_SESSION_TOKEN: sessionToken }),
      ...variables,
    },
    resourceValue: aws.resourceValue,
    ...(options.functionSource ? { sourceOf: options.functionSource } : {}),
  };
  const model = apiModel(options.template, modelOptions);
  // One pool per function, whichever paths invoke it: the API's, the stream mappings', the rules' and queues'.
  const functions = new LambdaFunctions(
    (logicalId) => functionModel(logicalId, options.template.Resources, modelOptions),
    aws.environments,
  );
  const mappingModels = streamMappingModels(options.template, options.tableName);
  for (const mapping of mappingModels) functions.get(mapping.functionId);
  const engine = createEngine(model, options.errorBody, options.onAccess, functions);
  const api: RequestListener = (request, response) => void engine.listener(request, response);
  const gate = requestGate(options.listener ? options.listener(api, model.stage) : api);
  const server = createApiServer(gate.listener, {
    gatewayResponses: model.gatewayResponses,
    ...(options.errorBody ? { errorBody: options.errorBody } : {}),
  });
  await step(
    'starting the API',
    () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => resolve());
      }),
  ).catch(async (error: unknown) => {
    await aws.close();
    await functions.close();
    await db?.close();
    throw error;
  });
  const stream = db?.changeStream;
  if (stream) for (const mapping of mappingModels) await ensureCheckpoint(mapping, stream);

  const { port } = server.address() as AddressInfo;
  let mappings: RunningStreamMapping[] = [];
  return {
    // An IPv6 address (HOST=::1) is written in brackets, or the URL would not parse.
    baseUrl: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/${model.stage}`,
    ...(db ? { dynamoDb: db } : {}),
    eventsAndQueuesEndpoint: aws.endpoint,
    variables,
    open() {
      gate.open();
      if (options.events === false) return;
      aws.start(functions);
      // Discarded stream records' failure records go to the mapping's on-failure queue (a local queue).
      mappings = startMappings(mappingModels, functions, db, async (destination, record) => {
        if (destination) await aws.sendToQueue(destination, JSON.stringify(record));
      });
    },
    sendToQueue: (queue, body) => aws.sendToQueue(queue, body),
    recycle: () => functions.recycle(),
    async close() {
      // The drain starts first, so that the connections still open get `Connection: close` on their answers;
      // then the server stops accepting and closes the idle ones.
      // No function runs at the drain's cut: each started ends (or times out) a margin before it.
      const deadline = Date.now() + integrationTimeoutMs - answerMarginMs;
      functions.endBy(deadline);
      // The mappings stop polling; a batch being invoked finishes and is checkpointed.
      const mappingsStopped = Promise.all(mappings.map((mapping) => mapping.stop()));
      const drained = gate.drain(integrationTimeoutMs);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await drained;
      server.closeAllConnections();
      await closed;
      await mappingsStopped;
      await aws.close();
      await functions.close();
      await db?.close();
    },
  };
}

/**
 * Starts each stream mapping of the template on the embedded store's change stream; `onFailure` takes the
 * failure records of discarded records (`destination`: the logical id of the on-failure destination). A store
 * served elsewhere ({@link ServeOptions.dynamoDbEndpoint}) has no change stream here: the mappings are not
 * run, and a line says so.
 */
function startMappings(
  models: ReturnType<typeof streamMappingModels>,
  functions: LambdaFunctions,
  db: LocalDynamoDb | undefined,
  onFailure: (destination: string | undefined, record: StreamFailureRecord) => Promise<void> | void,
): RunningStreamMapping[] {
  if (models.length === 0) return [];
  const stream = db?.changeStream;
  if (!stream) {
    process.stderr.write(
      `Stream mappings not run (${models.map((m) => m.logicalId).join(', ')}): the DynamoDB served elsewhere has no local change stream\n`,
    );
    return [];
  }
  return models.map((model) =>
    startStreamMapping(model, {
      stream,
      invoke: (event) => functions.get(model.functionId).invoke(event),
      onFailure,
    }),
  );
}
