/**
 * @module The template's event buses, rules, queues and queue mappings run locally behind one AWS endpoint
 * (README.md "Events and queues"): what serve.ts starts beside the API.
 */

import { type JsonEndpoint, startJsonEndpoint } from './aws-endpoint.ts';
import type { LevelStore } from './common/level-store.ts';
import type { StoreCredentials } from './common/store-credentials.ts';
import { eventBridgeProtocol, eventBridgeService } from './eventbridge/api.ts';
import { EventBuses } from './eventbridge/event-bus.ts';
import { type EventsModel, eventsModel } from './eventbridge/events-model.ts';
import { LambdaFunctions } from './lambda/lambda-functions.ts';
import type { LambdaFunction } from './lambda/lambda-runtime.ts';
import { mappingConcurrency, type QueueMapping, startQueueMapping } from './mappings/queue-mapping.ts';
import { sqsProtocol, sqsService } from './sqs/api.ts';
import { QueueJournal } from './sqs/queue-journal.ts';
import { LocalQueues } from './sqs/queues.ts';
import { functionModel, type ModelOptions, type Template } from './template/api-model.ts';

/** The account id of local ARNs (as api-model.ts's `AWS::AccountId`). */
export const localAccount = '000000000000';

/** Local buses and queues, their endpoint and the functions their rules and mappings invoke. */
export interface EventsAndQueues {
  /** `http://host:port` of the endpoint. */
  endpoint: string;
  /** What every function gets so its SDK clients reach the endpoint: `AWS_ENDPOINT_URL_EVENTBRIDGE`, `_SQS`. */
  variables: Record<string, string>;
  /** The local value of a queue's or a bus's `Ref` / `Fn::GetAtt` (for {@link ModelOptions.resourceValue}). */
  resourceValue(logicalId: string, attribute?: string): string | undefined;
  queues: LocalQueues;
  /**
   * The execution environments each function needs at once beyond Lambda's pool (the batches its queue
   * mappings run at once), by logical id: for the template's {@link LambdaFunctions}.
   */
  environments: Record<string, number>;
  /**
   * Answers requests, delivers events and starts polling. The rules' and queue mappings' functions run in
   * `functions`, the template's registry shared with the API and the stream mappings (its owner closes it); or,
   * given options, in functions of its own built with them (the same overrides as the API's), which
   * {@link close} closes.
   * @throws Error naming a function whose model cannot be built
   */
  start(functions: LambdaFunctions | ModelOptions): void;
  /**
   * Sends `body` to the queue with this logical id, name or ARN (a DynamoDB-stream mapping's on-failure
   * destination, for instance); resolves with the message id once the message is stored.
   * @throws Error when no queue of the template has that reference
   */
  sendToQueue(queue: string, body: string): Promise<string>;
  /**
   * Stops polling and retrying; waits for the batches and invocations in flight; closes the endpoint (its
   * long polls answer at once) and the functions of its own. Messages still queued stay in the journal, when
   * there is one, for the next start; without one they are lost. Retries of Lambda targets still waiting are
   * dropped.
   */
  close(): Promise<void>;
}

/** How to start the local buses and queues. */
export interface EventsAndQueuesOptions {
  template: Template;
  /** The only credentials the endpoint accepts (the embedded store's, or the process's). */
  credentials: StoreCredentials;
  /** The data folder to write `aws-endpoint` into; none for a store in memory. */
  dataDir?: string;
  /**
   * The database where the queues keep their messages across restarts (the embedded store's:
   * sqs/queue-journal.ts); without one they live in memory only.
   */
  levelDb?: LevelStore;
  region?: string;
  /** Delays before Lambda's asynchronous retries (default event-bus.ts `asyncRetryDelaysMs`). */
  asyncRetryDelaysMs?: number[];
}

/**
 * Reads the template's buses, rules, queues and queue mappings (refusing what is not served locally), loads
 * the messages the journal keeps, and starts the endpoint; requests are answered once {@link EventsAndQueues.start}
 * runs.
 * @throws Error naming a resource not served locally, or when the endpoint cannot listen
 */
export async function prepareEventsAndQueues(options: EventsAndQueuesOptions): Promise<EventsAndQueues> {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const model: EventsModel = eventsModel(options.template);
  const server: JsonEndpoint = await startJsonEndpoint({
    credentials: options.credentials,
    protocols: [eventBridgeProtocol, sqsProtocol],
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  const queues = new LocalQueues(
    model.queues,
    server.endpoint,
    region,
    localAccount,
    options.levelDb ? new QueueJournal(options.levelDb) : undefined,
  );
  await queues.restore().catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  // An environment for each batch its queue mappings run at once: none waits holding its messages.
  const environments: Record<string, number> = {};
  for (const mapping of model.queueMappings) {
    environments[mapping.functionId] = (environments[mapping.functionId] ?? 0) + mappingConcurrency(mapping);
  }
  /** The functions of the rules and queue mappings, by logical id, once started. */
  const functions = new Map<string, LambdaFunction>();
  /** The functions {@link EventsAndQueues.start} built from options, which {@link EventsAndQueues.close} closes. */
  let own: LambdaFunctions | undefined;
  let buses: EventBuses | undefined;
  let mappings: QueueMapping[] = [];

  const resourceValue = (logicalId: string, attribute?: string): string | undefined => {
    const queue = model.queues.some((settings) => settings.logicalId === logicalId)
      ? queues.find(logicalId)
      : undefined;
    if (queue) {
      if (attribute === undefined || attribute === 'QueueUrl') return queue.url;
      if (attribute === 'Arn') return queue.arn;
      if (attribute === 'QueueName') return queue.settings.name;
      return undefined;
    }
    const bus = model.buses[logicalId];
    if (bus) {
      if (attribute === undefined || attribute === 'Name') return bus;
      if (attribute === 'Arn') return `arn:aws:events:${region}:${localAccount}:event-bus/${bus}`;
    }
    return undefined;
  };

  const functionOf = (logicalId: string): LambdaFunction => {
    const fn = functions.get(logicalId);
    if (!fn) throw new Error(`${logicalId} is not a function of a rule or a queue mapping`);
    return fn;
  };

  return {
    endpoint: server.endpoint,
    variables: { AWS_ENDPOINT_URL_EVENTBRIDGE: server.endpoint, AWS_ENDPOINT_URL_SQS: server.endpoint },
    resourceValue,
    queues,
    environments,
    start(given) {
      if (!(given instanceof LambdaFunctions)) {
        const withResources: ModelOptions = { ...given, resourceValue };
        own = new LambdaFunctions(
          (logicalId) => functionModel(logicalId, options.template.Resources, withResources),
          environments,
        );
      }
      const registry = own ?? (given as LambdaFunctions);
      for (const logicalId of model.functionIds) functions.set(logicalId, registry.get(logicalId));
      buses = new EventBuses(Object.values(model.buses), model.rules, {
        functionOf,
        queues,
        region,
        account: localAccount,
        asyncRetries: model.asyncRetries,
        ...(options.asyncRetryDelaysMs ? { retryDelaysMs: options.asyncRetryDelaysMs } : {}),
      });
      server.serve([eventBridgeService(buses), sqsService(queues, options.credentials.accessKeyId)]);
      mappings = model.queueMappings.map((mapping) => {
        const queue = queues.find(mapping.queueId);
        if (!queue) throw new Error(`template: ${mapping.logicalId}: no queue ${mapping.queueId}`);
        return startQueueMapping(mapping, queue, functionOf(mapping.functionId), region);
      });
    },
    async sendToQueue(reference, body) {
      const queue = queues.find(reference);
      if (!queue) throw new Error(`no local queue ${reference}`);
      return (await queue.send(body, { senderId: 'lambda' })).messageId;
    },
    async close() {
      const polling = mappings.map((mapping) => mapping.close());
      queues.close();
      await Promise.all(polling);
      await buses?.close();
      await server.close();
      await own?.close();
    },
  };
}
