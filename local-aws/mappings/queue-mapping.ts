/**
 * @module The local SQS event source mapping: the queue's adapter of the shared poller (poller.ts), which
 * long-polls the queue, invokes the function with SQS events shaped as Lambda's, deletes what succeeded and
 * leaves the rest to reappear after their visibility timeout (behaviour.md M1-M6).
 * @see https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html
 * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html
 */
import type { QueueMappingModel } from '../eventbridge/events-model.ts';
import type { LambdaFunction } from '../lambda/lambda-runtime.ts';
import { type LocalQueue, type Received, SqsError } from '../sqs/queues.ts';
import { startPoller } from './poller.ts';

/** One record of an SQS event, as Lambda delivers it (`SQSRecord` of @types/aws-lambda). */
export interface SqsRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: {
    ApproximateReceiveCount: string;
    SentTimestamp: string;
    SenderId: string;
    ApproximateFirstReceiveTimestamp: string;
    /** The message's group, when it was sent with one (a fair queue's tenant). */
    MessageGroupId?: string;
  };
  /** Always empty: no function of a served template sends message attributes. */
  messageAttributes: Record<string, never>;
  md5OfBody: string;
  eventSource: 'aws:sqs';
  eventSourceARN: string;
  awsRegion: string;
}

/**
 * Concurrent batches (pollers) of a mapping, at most: AWS starts with five and scales up to 1,000
 * (services-sqs-scaling.html); locally eight, each batch with an execution environment of its own (a function
 * read by mappings keeps one for each of their batches beside its pool: lambda-runtime.ts), so that no batch
 * holds its messages in flight while it waits for an environment, and a batch of slow messages holds only
 * itself.
 * `ScalingConfig.MaximumConcurrency` may lower it.
 */
export const maxConcurrency = 8;

/** The batches `model` runs at once: its `MaximumConcurrency`, at most {@link maxConcurrency}. */
export function mappingConcurrency(model: QueueMappingModel): number {
  return Math.min(model.maximumConcurrency ?? maxConcurrency, maxConcurrency);
}

/** The Lambda event record of a received message. */
export function sqsRecord(received: Received, queue: LocalQueue, region: string): SqsRecord {
  const { message, receiptHandle } = received;
  return {
    messageId: message.messageId,
    receiptHandle,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentTimestamp),
      SenderId: message.senderId,
      ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
      ...(message.messageGroupId !== undefined && { MessageGroupId: message.messageGroupId }),
    },
    messageAttributes: {},
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: region,
  };
}

/** A running queue mapping. */
export interface QueueMapping {
  /**
   * Stops polling; waits for the batches in flight (their function ends or times out) and their deletes; the
   * messages received and not invoked are made visible again at once.
   */
  close(): Promise<void>;
}

/**
 * Starts the mapping's pollers: each long-polls (20 s) for up to `BatchSize` messages (gathering for up to
 * `MaximumBatchingWindowInSeconds`), invokes `fn` synchronously with `{Records}`, then deletes every message
 * except the failed ones: all of them on a function error, those of `batchItemFailures` with
 * ReportBatchItemFailures. A message not deleted reappears after its visibility timeout; one received and not
 * invoked when the mapping closes is visible again at once.
 */
export function startQueueMapping(
  model: QueueMappingModel,
  queue: LocalQueue,
  fn: LambdaFunction,
  region: string,
): QueueMapping {
  const poller = startPoller<SqsRecord>(
    {
      receive: async (max, waitMs, signal) =>
        (await queue.receive({ max: Math.min(10, max), waitSeconds: waitMs / 1000, signal })).map(
          (received) => sqsRecord(received, queue, region),
        ),
      itemId: (record) => record.messageId,
      settle: async (records) => {
        await Promise.all(records.map((record) => queue.delete(record.receiptHandle)));
      },
      // ChangeMessageVisibility to 0, as a consumer that stops cleanly does: visible again at once (M6).
      release: async (records) => {
        await Promise.all(
          records.map((record) =>
            queue.changeVisibility(record.receiptHandle, 0).catch((error: unknown) => {
              // No longer in flight (its visibility timeout ended): visible already.
              if (!(error instanceof SqsError && error.type === 'MessageNotInflight')) throw error;
            }),
          ),
        );
      },
    },
    {
      logicalId: model.logicalId,
      functionId: fn.config.logicalId,
      batchSize: model.batchSize,
      batchingWindowSeconds: model.batchingWindowSeconds,
      concurrency: mappingConcurrency(model),
      reportBatchItemFailures: model.reportBatchItemFailures,
      failures: 'set',
      waitMs: 20_000,
      invoke: (event) => fn.invoke(event),
    },
  );
  return { close: () => poller.stop() };
}
