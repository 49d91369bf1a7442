/**
 * @module The template's event buses, rules, queues and queue mappings run locally behind one AWS endpoint
 * (README.md "Events and queues"): what serve.ts starts beside the API.
 */

import { type AwsEndpoint, startAwsEndpoint } from './aws-endpoint.ts';
import type { LevelStore } from './common/level-store.ts';
import type { StoreCredentials } from './common/store-credentials.ts';
import { EventBuses } from './eventbridge/event-bus.ts';
import { type EventsModel, eventsModel } from './eventbridge/events-model.ts';
import { LambdaFunction } from './lambda/lambda-runtime.ts';
import { mappingConcurrency, type QueueMapping, startQueueMapping } from './mappings/queue-mapping.ts';
import { QueueJournal } from './sqs/queue-journal.ts';
import { LocalQueues } from './sqs/queues.ts';
import { type FunctionModel, functionModel, type ModelOptions, type Template } from './template/api-model.ts';

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
   * Builds the functions of the rules and queue mappings with `options` (the same overrides as the API's),
   * then answers requests, delivers events and starts polling.
   * @throws Error naming a function whose model cannot be built
   */
  start(options: ModelOptions): void;
  /**
   * Sends `body` to the queue with this logical id, name or ARN (a DynamoDB-stream mapping's on-failure
   * destination, for instance); resolves with the message id once the message is stored.
   * @throws Error when no queue of the template has that reference
   */
  sendToQueue(queue: string, body: string): Promise<string>;
  /** Retires the execution environments of the event functions (see {@link LambdaFunction.recycle}). */
  recycle(): void;
  /** No event function starts an invocation that could not end by `deadline` (epoch ms). */
  endBy(deadline: number): void;
  /**
   * Stops polling and retrying; waits for the batches and invocations in flight; closes the endpoint (its
   * long polls answer at once) and the functions. Messages still queued stay in the journal, when there is
   * one, for the next start; without one they are lost. Retries of Lambda targets still waiting are dropped.
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
  const server: AwsEndpoint = await startAwsEndpoint({
    credentials: options.credentials,
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
  const functions = new Map<string, LambdaFunction>();
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
    start(functionOptions) {
      const withResources: ModelOptions = { ...functionOptions, resourceValue };
      for (const logicalId of model.functionIds) {
        const config: FunctionModel = functionModel(logicalId, options.template.Resources, withResources);
        // An environment for each batch its queue mappings run at once: none waits holding its messages.
        const batches = model.queueMappings
          .filter((mapping) => mapping.functionId === logicalId)
          .reduce((sum, mapping) => sum + mappingConcurrency(mapping), 0);
        functions.set(logicalId, new LambdaFunction(config, batches));
      }
      buses = new EventBuses(Object.values(model.buses), model.rules, {
        functionOf,
        queues,
        region,
        account: localAccount,
        asyncRetries: model.asyncRetries,
        ...(options.asyncRetryDelaysMs ? { retryDelaysMs: options.asyncRetryDelaysMs } : {}),
      });
      server.serve({ buses, queues });
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
    recycle() {
      for (const fn of functions.values()) fn.recycle();
    },
    endBy(deadline) {
      for (const fn of functions.values()) fn.endBy(deadline);
    },
    async close() {
      const polling = mappings.map((mapping) => mapping.close());
      queues.close();
      await Promise.all(polling);
      await buses?.close();
      await server.close();
      await Promise.all([...functions.values()].map((fn) => fn.close()));
    },
  };
}
