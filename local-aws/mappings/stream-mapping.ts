/**
 * Lambda's event source mappings on DynamoDB streams, run locally on the embedded store's change stream as the
 * served template declares them: the stream's adapter of the shared poller (poller.ts), which reads in order
 * from a checkpoint and moves it past what is done or discarded (README.md "The change stream";
 * behaviour.md D6-D14).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChangeStream, StreamRecord } from '../dynamodb/change-stream.ts';
import type { InvokeOutcome } from '../lambda/lambda-runtime.ts';
import { functionOf, referencedId, type Template } from '../template/api-model.ts';
import { type DiscardCondition, type PollSource, startPoller } from './poller.ts';

/** An `AWS::Lambda::EventSourceMapping` whose `EventSourceArn` is a table's stream, with Lambda's defaults applied. */
export interface StreamMappingModel {
  /** The mapping's logical id: its checkpoint's name in the store. */
  logicalId: string;
  /** Logical id of the function it invokes (`FunctionName`). */
  functionId: string;
  /** Logical id of the table whose stream it reads (`Fn::GetAtt [<Table>, StreamArn]`). */
  tableId: string;
  /** The table's local name. */
  tableName: string;
  /** `BatchSize` (default 100). */
  batchSize: number;
  /** `MaximumBatchingWindowInSeconds` (default 0). */
  batchingWindowSeconds: number;
  /** `StartingPosition`: where a mapping with no checkpoint yet starts. */
  startingPosition: 'LATEST' | 'TRIM_HORIZON';
  /** `BisectBatchOnFunctionError` (default false). */
  bisectBatchOnFunctionError: boolean;
  /** `MaximumRetryAttempts` (default -1: until the records expire). */
  maximumRetryAttempts: number;
  /** `MaximumRecordAgeInSeconds` (default -1: until the records expire). */
  maximumRecordAgeSeconds: number;
  /** `FunctionResponseTypes` holds `ReportBatchItemFailures`. */
  reportBatchItemFailures: boolean;
  /** `DestinationConfig.OnFailure.Destination`: the logical id of the resource it names, else the value as JSON. */
  onFailureDestination?: string;
  /** `Enabled` (default true). */
  enabled: boolean;
}

/** The metadata Lambda sends to a stream mapping's on-failure destination for discarded records. */
export interface StreamFailureRecord {
  requestContext: {
    requestId: string;
    functionArn: string;
    condition: 'RetryAttemptsExhausted' | 'RecordAgeExceeded';
    approximateInvokeCount: number;
  };
  responseContext: { statusCode: number; executedVersion: string; functionError?: string };
  version: '1.0';
  /** RFC 3339 time of the discard. */
  timestamp: string;
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    approximateArrivalOfFirstRecord: string;
    approximateArrivalOfLastRecord: string;
    batchSize: number;
    streamArn: string;
  };
}

/** The one shard of a local stream. */
const shardId = 'shardId-00000000000000000001-00000001';

/**
 * The mappings of `template` that read a table's stream; `tableName` gives a table's local name by its
 * logical id. Mappings on other sources (SQS queues) are left to their own runner.
 */
export function streamMappingModels(
  template: Template,
  tableName: (logicalId: string) => string,
): StreamMappingModel[] {
  const resources = template.Resources;
  const models: StreamMappingModel[] = [];
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const properties = resource.Properties ?? {};
    const source = properties.EventSourceArn as Record<string, unknown> | undefined;
    const getAtt = source?.['Fn::GetAtt'];
    if (!Array.isArray(getAtt) || getAtt[1] !== 'StreamArn') continue;
    const tableId = String(getAtt[0]);
    if (resources[tableId]?.Type !== 'AWS::DynamoDB::Table') continue;
    const functionId = functionOf(properties.FunctionName, resources);
    if (!functionId) throw new Error(`template: ${logicalId}: FunctionName names no Lambda function`);
    const onFailure = (properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)
      ?.OnFailure?.Destination;
    const destination =
      onFailure === undefined
        ? undefined
        : (referencedId(
            onFailure,
            resources,
            Object.values(resources).map((r) => r.Type),
          ) ?? JSON.stringify(onFailure));
    models.push({
      logicalId,
      functionId,
      tableId,
      tableName: tableName(tableId),
      batchSize: Number(properties.BatchSize ?? 100),
      batchingWindowSeconds: Number(properties.MaximumBatchingWindowInSeconds ?? 0),
      startingPosition: properties.StartingPosition === 'TRIM_HORIZON' ? 'TRIM_HORIZON' : 'LATEST',
      bisectBatchOnFunctionError: properties.BisectBatchOnFunctionError === true,
      maximumRetryAttempts: Number(properties.MaximumRetryAttempts ?? -1),
      maximumRecordAgeSeconds: Number(properties.MaximumRecordAgeInSeconds ?? -1),
      reportBatchItemFailures: ((properties.FunctionResponseTypes ?? []) as string[]).includes(
        'ReportBatchItemFailures',
      ),
      ...(destination ? { onFailureDestination: destination } : {}),
      enabled: properties.Enabled !== false,
    });
  }
  return models;
}

/** What a running mapping needs. */
export interface StreamMappingOptions {
  stream: ChangeStream;
  /** Invokes the mapping's function synchronously (lambda-runtime.ts `LambdaFunction.invoke`). */
  invoke(event: unknown): Promise<InvokeOutcome>;
  /**
   * Takes the failure record of discarded records, for the destination (undefined: the mapping has none, and
   * the records are only dropped). A throw is retried: the mapping does not move on until it is taken.
   */
  onFailure(destination: string | undefined, record: StreamFailureRecord): Promise<void> | void;
  /** Time between polls of an empty stream (default 250 ms: Lambda polls 4 times a second). */
  pollIntervalMs?: number;
  /** First delay before retrying a failed batch, doubled each retry up to 30 s (default 1000 ms). */
  retryBaseMs?: number;
  /** Where the mapping writes its lines (default stderr). */
  log?(line: string): void;
}

/** A mapping polling its stream. */
export interface RunningStreamMapping {
  /**
   * Stops polling: a batch whose invocation is running finishes and is checkpointed as it ends; a batch waiting
   * for a retry is abandoned (its checkpoint is not moved, the next start delivers it again).
   */
  stop(): Promise<void>;
}

/**
 * The checkpoint of mapping `model` (the sequence number of the last record done, '' for none), saved first
 * when the mapping has none: at `StartingPosition` (LATEST: after the newest record now in the stream;
 * TRIM_HORIZON: before the oldest kept). `startLocalAws` saves it before it returns, so before the caller fills
 * the tables, as a deployed mapping exists before any write to its table.
 */
export async function ensureCheckpoint(model: StreamMappingModel, stream: ChangeStream): Promise<string> {
  const saved = await stream.checkpoint(model.logicalId);
  if (saved !== undefined) return saved;
  const position = model.startingPosition === 'LATEST' ? ((await stream.latest(model.tableName)) ?? '') : '';
  await stream.saveCheckpoint(model.logicalId, position);
  return position;
}

/** RFC 3339 of a record's ApproximateCreationDateTime (epoch seconds). */
const arrival = (record: StreamRecord) =>
  new Date(record.dynamodb.ApproximateCreationDateTime * 1000).toISOString().replace('.000Z', 'Z');

/**
 * Starts the mapping `model`: polls its table's stream from its checkpoint (saved in the store; a mapping
 * without one starts at `StartingPosition`), invokes the function with one batch at a time in stream order,
 * and retries, bisects, and discards to the on-failure destination as Lambda does: a failing batch is retried
 * until `MaximumRetryAttempts`, `MaximumRecordAgeInSeconds`, or the stream's retention (its records expire),
 * whichever comes first.
 */
export function startStreamMapping(
  model: StreamMappingModel,
  options: StreamMappingOptions,
): RunningStreamMapping {
  if (!model.enabled) return { stop: async () => {} };
  const { stream } = options;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const functionArn = `arn:aws:lambda:us-east-1:000000000000:function:${model.functionId}`;
  const retryDelay = (tries: number) => Math.min(retryBaseMs * 2 ** (tries - 1), 30_000);
  // A record is given up at MaximumRecordAgeInSeconds, and in any case when the stream no longer keeps it
  // (-1: "retried until the record expires", behaviour.md D9, D12).
  const retentionSeconds = stream.retentionMs / 1000;
  const maximumAgeSeconds =
    model.maximumRecordAgeSeconds >= 0
      ? Math.min(model.maximumRecordAgeSeconds, retentionSeconds)
      : retentionSeconds;
  const checkpoint = (record: StreamRecord) =>
    stream.saveCheckpoint(model.logicalId, record.dynamodb.SequenceNumber);
  const stopping = new AbortController();
  /** The sequence number of the last record received (undefined: the checkpoint is not read yet). */
  let position: string | undefined;

  /** Waits `ms`, or less when `signal` aborts. */
  const wait = (ms: number, signal: AbortSignal) =>
    sleep(ms, undefined, { signal, ref: false }).catch(() => {});
  const read = async (max: number) => {
    position ??= await ensureCheckpoint(model, stream);
    const records = await stream.read(model.tableName, position || undefined, max);
    if (records.length > 0) position = (records.at(-1) as StreamRecord).dynamodb.SequenceNumber;
    return records;
  };

  const source: PollSource<StreamRecord> = {
    // An empty read waits one poll interval before the poller reads again.
    async receive(max, waitMs, signal) {
      const records = await read(max);
      if (records.length === 0) await wait(waitMs, signal);
      return records;
    },
    itemId: (record) => record.dynamodb.SequenceNumber,
    settle: (records) => checkpoint(records.at(-1) as StreamRecord),
    arrivedAt: (record) => record.dynamodb.ApproximateCreationDateTime,
    /** Hands the records to the destination (retried until taken; false if the mapping stops first), then moves past them. */
    async discard(records, condition: DiscardCondition, tries, functionError) {
      const first = records[0] as StreamRecord;
      const last = records.at(-1) as StreamRecord;
      const record: StreamFailureRecord = {
        requestContext: { requestId: randomUUID(), functionArn, condition, approximateInvokeCount: tries },
        responseContext: {
          statusCode: 200,
          executedVersion: '$LATEST',
          ...(functionError ? { functionError } : {}),
        },
        version: '1.0',
        timestamp: new Date().toISOString(),
        DDBStreamBatchInfo: {
          shardId,
          startSequenceNumber: first.dynamodb.SequenceNumber,
          endSequenceNumber: last.dynamodb.SequenceNumber,
          approximateArrivalOfFirstRecord: arrival(first),
          approximateArrivalOfLastRecord: arrival(last),
          batchSize: records.length,
          streamArn: first.eventSourceARN,
        },
      };
      for (let attempt = 1; ; attempt += 1) {
        if (stopping.signal.aborted) return false;
        try {
          await options.onFailure(model.onFailureDestination, record);
          break;
        } catch (error) {
          log(
            `${model.logicalId}: on-failure destination did not take the record: ${(error as Error).message}`,
          );
          await wait(retryDelay(attempt), stopping.signal);
        }
      }
      await checkpoint(last);
      return true;
    },
  };
  const poller = startPoller(source, {
    logicalId: model.logicalId,
    functionId: model.functionId,
    batchSize: model.batchSize,
    batchingWindowSeconds: model.batchingWindowSeconds,
    // One shard, read in order: one batch at a time.
    concurrency: 1,
    reportBatchItemFailures: model.reportBatchItemFailures,
    failures: 'ordered',
    retry: {
      maximumRetryAttempts: model.maximumRetryAttempts,
      maximumAgeSeconds,
      bisect: model.bisectBatchOnFunctionError,
      baseMs: retryBaseMs,
    },
    waitMs: options.pollIntervalMs ?? 250,
    invoke: (event) => options.invoke(event),
    log,
  });
  return {
    async stop() {
      stopping.abort();
      await poller.stop();
    },
  };
}
