/**
 * @module The local SQS event source mapping: pollers that long-poll a queue, invoke the function with SQS
 * events shaped as Lambda's, delete what succeeded and leave the rest to reappear (local-aws/behaviour.md M1-M6).
 * @see https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html
 * @see https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html
 */
import type { QueueMappingModel } from '../eventbridge/events-model.ts';
import type { LambdaFunction } from '../lambda/lambda-runtime.ts';
import type { LocalQueue, MessageAttribute, Received } from '../sqs/queues.ts';

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
  };
  messageAttributes: Record<
    string,
    {
      stringValue?: string;
      binaryValue?: string;
      stringListValues: string[];
      binaryListValues: string[];
      dataType: string;
    }
  >;
  md5OfBody: string;
  eventSource: 'aws:sqs';
  eventSourceARN: string;
  awsRegion: string;
}

/**
 * Concurrent batches (pollers) of a mapping, at most: AWS starts with five and scales up to 1,000
 * (services-sqs-scaling.html); locally four, the execution environments the runtime keeps per function
 * (lambda-runtime.ts), so that no batch holds its messages in flight while it waits for an environment.
 * `ScalingConfig.MaximumConcurrency` may lower it.
 */
export const maxConcurrency = 4;

/** The Lambda event record of a received message. */
export function sqsRecord(received: Received, queue: LocalQueue, region: string): SqsRecord {
  const { message, receiptHandle } = received;
  const messageAttributes = Object.fromEntries(
    Object.entries(message.messageAttributes).map(([name, value]: [string, MessageAttribute]) => [
      name,
      {
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: value.BinaryValue } : {}),
        stringListValues: [],
        binaryListValues: [],
        dataType: value.DataType,
      },
    ]),
  );
  return {
    messageId: message.messageId,
    receiptHandle,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentTimestamp),
      SenderId: message.senderId,
      ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? message.sentTimestamp),
    },
    messageAttributes,
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: region,
  };
}

/**
 * The message ids a function's result reports as failed (`{"batchItemFailures": [{"itemIdentifier"}]}`), or
 * `all` when the result is invalid: an identifier that is empty, missing or not in the batch makes Lambda
 * treat the whole batch as failed (services-sqs-errorhandling.html "Success and failure conditions").
 */
export function failedItems(payload: string, batch: SqsRecord[]): Set<string> | 'all' {
  let result: unknown;
  try {
    result = JSON.parse(payload);
  } catch {
    return 'all';
  }
  if (result === null || typeof result !== 'object') return new Set();
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return 'all';
  const ids = new Set(batch.map((record) => record.messageId));
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return 'all';
    failed.add(id);
  }
  return failed;
}

/** A running queue mapping. */
export interface QueueMapping {
  /** Stops polling; waits for the batches in flight (their function ends or times out) and their deletes. */
  close(): Promise<void>;
}

/**
 * Starts the mapping's pollers: each long-polls (20 s) for up to `BatchSize` messages (gathering for up to
 * `MaximumBatchingWindowInSeconds`), invokes `fn` synchronously with `{Records}`, then deletes every message
 * except the failed ones: all of them on a function error, those of `batchItemFailures` with
 * ReportBatchItemFailures. A message not deleted reappears after its visibility timeout.
 */
export function startQueueMapping(
  model: QueueMappingModel,
  queue: LocalQueue,
  fn: LambdaFunction,
  region: string,
): QueueMapping {
  const abort = new AbortController();
  const concurrency = Math.min(model.maximumConcurrency ?? maxConcurrency, maxConcurrency);

  async function nextBatch(): Promise<Received[]> {
    const batch = await queue.receive({
      max: Math.min(10, model.batchSize),
      waitSeconds: 20,
      signal: abort.signal,
    });
    const windowEnd = Date.now() + model.batchingWindowSeconds * 1000;
    while (batch.length > 0 && batch.length < model.batchSize && !abort.signal.aborted) {
      const remaining = windowEnd - Date.now();
      if (remaining <= 0) break;
      const more = await queue.receive({
        max: Math.min(10, model.batchSize - batch.length),
        waitSeconds: remaining / 1000,
        signal: abort.signal,
      });
      batch.push(...more);
    }
    return batch;
  }

  async function poll(): Promise<void> {
    while (!abort.signal.aborted) {
      const batch = await nextBatch();
      if (batch.length === 0) continue;
      const records = batch.map((received) => sqsRecord(received, queue, region));
      const outcome = await fn.invoke({ Records: records }).catch((error: Error) => ({
        type: 'error' as const,
        errorType: error.name,
        errorMessage: error.message,
      }));
      let failed: Set<string> | 'all' = 'all';
      if (outcome.type === 'result')
        failed = model.reportBatchItemFailures ? failedItems(outcome.payload, records) : new Set();
      if (outcome.type === 'error') {
        process.stderr.write(
          `${new Date().toISOString()} ${model.logicalId}: ${fn.config.logicalId} failed a batch of ${records.length}: ${outcome.errorType}: ${outcome.errorMessage}\n`,
        );
      }
      if (failed === 'all') continue;
      const done = records.filter((record) => !failed.has(record.messageId));
      await Promise.all(done.map((record) => queue.delete(record.receiptHandle)));
    }
  }

  const pollers = Array.from({ length: concurrency }, () =>
    poll().catch((error: unknown) => {
      process.stderr.write(`${model.logicalId}: poller stopped: ${String(error)}\n`);
    }),
  );
  return {
    async close() {
      abort.abort();
      await Promise.all(pollers);
    },
  };
}
