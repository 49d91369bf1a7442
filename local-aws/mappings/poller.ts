/**
 * @module The one poll loop of Lambda's event source mappings, whatever the source (a table's stream, a
 * queue): gather a batch (batch size, batching window, the payload limit), invoke the function, read its
 * answer (function error, partial batch response), then, as the source needs, settle what succeeded, retry or
 * bisect what failed, and discard what is past its retries or its age (behaviour.md D6-D14, M1-M6).
 * A source is a small adapter ({@link PollSource}): streams.ts, queues.ts.
 * @see https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventsourcemapping.html
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type InvokeOutcome, maxRequestPayloadBytes } from '../lambda/lambda-runtime.ts';

/** Why records are given up: past their retries, or past their age. */
export type DiscardCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/** The source of a mapping: where records come from and what becomes of them. */
export interface PollSource<R> {
  /**
   * Up to `max` records after those received before, in order, waiting up to `waitMs` for a first one (a
   * queue long-polls; a stream answers [] after waiting `waitMs`); [] when none came or `signal` aborted.
   */
  receive(max: number, waitMs: number, signal: AbortSignal): Promise<R[]>;
  /** The record's `itemIdentifier` in a partial batch response (a stream's sequence number, a message id). */
  itemId(record: R): string;
  /** The records (a prefix of a batch, or all of it) are done: checkpoint past them, or delete them. */
  settle(records: R[]): Promise<void>;
  /**
   * The records failed for good (`tries` invocations; the function's error type): hand them to the on-failure
   * destination and move past them. Resolves false when the mapping stopped before it could.
   */
  discard?(
    records: R[],
    condition: DiscardCondition,
    tries: number,
    functionError?: string,
  ): Promise<boolean>;
  /** When the record entered the source, in epoch seconds (for `MaximumRecordAgeInSeconds`). */
  arrivedAt?(record: R): number;
  /**
   * The records were received but will not be processed (the poller stops): hand them back to the source at
   * once (a queue: visible again, as a consumer that stops cleanly does), rather than after their visibility
   * timeout. Without it they are left as they are (a stream's position simply does not move).
   */
  release?(records: R[]): Promise<void>;
}

/** How a failing batch is retried in place (a stream's records wait, in order); none: it is left to the source. */
export interface RetrySettings {
  /** `MaximumRetryAttempts` (-1: until the records are past `maximumAgeSeconds`). */
  maximumRetryAttempts: number;
  /** The age, in seconds, past which a record is discarded unread. */
  maximumAgeSeconds: number;
  /** `BisectBatchOnFunctionError`: a function error splits the batch in two (no retry used). */
  bisect: boolean;
  /** First delay before a retry, in ms, doubled each retry up to 30 s. */
  baseMs: number;
}

/** The settings of a poller. */
export interface PollerSettings {
  /** The mapping's logical id, in its log lines. */
  logicalId: string;
  /** The logical id of the function it invokes, in its log lines. */
  functionId: string;
  /** `BatchSize`. */
  batchSize: number;
  /** `MaximumBatchingWindowInSeconds`. */
  batchingWindowSeconds: number;
  /** Batches in flight at once (a stream's shard: 1, in order). */
  concurrency: number;
  /** `FunctionResponseTypes` holds `ReportBatchItemFailures`. */
  reportBatchItemFailures: boolean;
  /**
   * How a partial batch response's failures are read: `ordered` (a stream: every record from the first failed
   * one on failed, an unreadable answer is a success) or `set` (a queue: only the listed ones, an unreadable
   * answer fails the whole batch).
   */
  failures: 'ordered' | 'set';
  /** In-place retries; without them a failed record is left in the source (a queue's visibility timeout). */
  retry?: RetrySettings;
  /** The longest a receive waits for a first record, in ms: a queue's long poll, a stream's poll interval. */
  waitMs: number;
  /** Invokes the function synchronously. */
  invoke(event: unknown): Promise<InvokeOutcome>;
  /** Writes a line (default stderr). */
  log?(line: string): void;
}

/** A running poller. */
export interface Poller {
  /**
   * Stops polling: a batch whose invocation is running finishes and is settled as it ends; a batch waiting for
   * a retry is abandoned (left in its source); records received and not yet invoked (a batch being gathered,
   * records carried to the next batch, a batch the function could no longer start) are released
   * ({@link PollSource.release}).
   */
  stop(): Promise<void>;
}

/** How an invocation went, as the poller reads it. */
export type Verdict =
  | { kind: 'success' }
  /** A partial batch response: the records with these indexes failed, the others succeeded. */
  | { kind: 'partial'; failed: number[] }
  | { kind: 'error'; functionError: string };

/**
 * Reads an invocation's outcome for `ids` (the batch's item identifiers). A function error, or a response
 * naming an empty, missing or unknown identifier, fails the whole batch (services-sqs-errorhandling.html,
 * services-ddb-batchfailurereporting.html).
 */
export function verdict(
  outcome: InvokeOutcome,
  ids: string[],
  report: boolean,
  failures: PollerSettings['failures'],
): Verdict {
  if (outcome.type === 'error') return { kind: 'error', functionError: 'Unhandled' };
  if (outcome.type === 'stream') {
    outcome.body.resume();
    return { kind: 'success' };
  }
  if (!report) return { kind: 'success' };
  const unreadable: Verdict =
    failures === 'set' ? { kind: 'error', functionError: 'Unhandled' } : { kind: 'success' };
  let response: unknown;
  try {
    response = failures === 'ordered' && outcome.payload === '' ? null : JSON.parse(outcome.payload);
  } catch {
    return unreadable;
  }
  if (response === null || typeof response !== 'object') return { kind: 'success' };
  const listed = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (listed === undefined || listed === null) return { kind: 'success' };
  if (!Array.isArray(listed)) return unreadable;
  if (listed.length === 0) return { kind: 'success' };
  const failed = new Set<number>();
  for (const failure of listed) {
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    const at = typeof identifier === 'string' && identifier !== '' ? ids.indexOf(identifier) : -1;
    if (at < 0) return { kind: 'error', functionError: 'Unhandled' };
    failed.add(at);
  }
  if (failures === 'set') return { kind: 'partial', failed: [...failed].sort((a, b) => a - b) };
  const from = Math.min(...failed);
  return { kind: 'partial', failed: ids.map((_, index) => index).filter((index) => index >= from) };
}

/** How many records of `records`, from the first, make an event within Lambda's payload limit (at least one). */
function withinPayload(records: unknown[]): number {
  let bytes = '{"Records":[]}'.length;
  let count = 0;
  for (const record of records) {
    bytes += Buffer.byteLength(JSON.stringify(record)) + 1;
    if (bytes > maxRequestPayloadBytes && count > 0) break;
    count += 1;
  }
  return count;
}

/**
 * Starts `settings.concurrency` poll loops on `source`. Each gathers up to `BatchSize` records (more come in
 * until the batch is full or the batching window since the first one ends), keeps those within the payload
 * limit for the next batch, invokes, and settles the batch's outcome: successes are settled; with
 * {@link RetrySettings} failures are retried in place (bisected on a function error) until discarded, without
 * them they are left in the source.
 */
export function startPoller<R>(source: PollSource<R>, settings: PollerSettings): Poller {
  const abort = new AbortController();
  const log = settings.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const retry = settings.retry;
  /** Records received but left out of the last batch by the payload limit: the next batch's first. */
  let carried: R[] = [];
  /** Waits `ms`, or less when the poller stops. */
  const wait = (ms: number) => sleep(ms, undefined, { signal: abort.signal, ref: false }).catch(() => {});
  const retryDelay = (tries: number) => Math.min((retry?.baseMs ?? 1000) * 2 ** (tries - 1), 30_000);

  async function nextBatch(): Promise<R[]> {
    const batch = carried.splice(0, settings.batchSize);
    if (batch.length === 0) {
      batch.push(...(await source.receive(settings.batchSize, settings.waitMs, abort.signal)));
      if (batch.length === 0) return batch;
    }
    const windowEnd = Date.now() + settings.batchingWindowSeconds * 1000;
    while (batch.length < settings.batchSize && !abort.signal.aborted) {
      const remaining = windowEnd - Date.now();
      if (remaining <= 0) break;
      const more = await source.receive(
        settings.batchSize - batch.length,
        Math.min(remaining, settings.waitMs),
        abort.signal,
      );
      batch.push(...more);
    }
    const count = withinPayload(batch);
    carried = [...batch.slice(count), ...carried];
    return batch.slice(0, count);
  }

  /** Gives up the records older than the maximum age; the rest, or undefined when the poller stopped. */
  async function dropExpired(batch: R[], tries: number): Promise<R[] | undefined> {
    if (!retry || !source.arrivedAt || !source.discard) return batch;
    const oldest = Date.now() / 1000 - retry.maximumAgeSeconds;
    const kept = batch.findIndex((record) => (source.arrivedAt as (r: R) => number)(record) >= oldest);
    const expired = kept < 0 ? batch.length : kept;
    if (expired === 0) return batch;
    if (!(await source.discard(batch.slice(0, expired), 'RecordAgeExceeded', tries))) return undefined;
    return batch.slice(expired);
  }

  /**
   * Delivers `batch` (its records have used `tries` invocations) until it succeeds, is left to its source or is
   * discarded; false when the poller stopped first.
   */
  async function deliver(initial: R[], initialTries: number): Promise<boolean> {
    let batch = initial;
    let tries = initialTries;
    for (;;) {
      if (abort.signal.aborted) {
        await release(batch);
        return false;
      }
      const fresh = await dropExpired(batch, tries);
      if (fresh === undefined) return false;
      batch = fresh;
      if (batch.length === 0) return true;
      let outcome: InvokeOutcome;
      try {
        outcome = await settings.invoke({ Records: batch });
      } catch {
        // The function is closed or past the shutdown's deadline: the template is being closed. Every loop stops
        // receiving, and the batch goes back to its source.
        abort.abort();
        await release(batch);
        return false;
      }
      const ids = batch.map((record) => source.itemId(record));
      const result = verdict(outcome, ids, settings.reportBatchItemFailures, settings.failures);
      if (result.kind === 'success') {
        await source.settle(batch);
        return true;
      }
      const failed =
        result.kind === 'partial' ? new Set(result.failed) : new Set(ids.map((_, index) => index));
      const succeeded = batch.filter((_, index) => !failed.has(index));
      if (!retry) {
        // Left to the source, a function error would go unseen: it is written down (in-place retries end in
        // a discard record instead).
        if (outcome.type === 'error') {
          log(
            `${new Date().toISOString()} ${settings.logicalId}: ${settings.functionId} failed a batch of ${batch.length}: ${outcome.errorType}: ${outcome.errorMessage}`,
          );
        }
        if (succeeded.length > 0) await source.settle(succeeded);
        return true;
      }
      // A function error splits the batch in two when bisection is on; the split uses no retry.
      if (result.kind === 'error' && retry.bisect && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        return (await deliver(batch.slice(0, half), tries)) && deliver(batch.slice(half), tries);
      }
      tries += 1;
      // In order: the records before the first failed one are done.
      if (succeeded.length > 0) await source.settle(succeeded);
      batch = batch.filter((_, index) => failed.has(index));
      const functionError = result.kind === 'error' ? result.functionError : 'Unhandled';
      if (retry.maximumRetryAttempts >= 0 && tries > retry.maximumRetryAttempts) {
        return (await source.discard?.(batch, 'RetryAttemptsExhausted', tries, functionError)) ?? true;
      }
      // No wait past the moment the oldest record expires: it is given up then.
      const arrived = source.arrivedAt?.(batch[0] as R);
      const expiresInMs =
        arrived === undefined
          ? Number.POSITIVE_INFINITY
          : (arrived + retry.maximumAgeSeconds) * 1000 - Date.now();
      await wait(Math.max(0, Math.min(retryDelay(tries), expiresInMs + 1000)));
    }
  }

  /** Hands `records` back to the source (see {@link PollSource.release}); a failure is logged, not thrown. */
  async function release(records: R[]): Promise<void> {
    if (!source.release || records.length === 0) return;
    try {
      await source.release(records);
    } catch (error) {
      log(`${settings.logicalId}: ${(error as Error).message}`);
    }
  }

  async function poll(): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        const batch = await nextBatch();
        // An empty receive waited already (a queue's long poll, a stream's poll interval).
        if (batch.length === 0) continue;
        if (!(await deliver(batch, 0))) break;
      } catch (error) {
        if (abort.signal.aborted) break;
        log(`${settings.logicalId}: ${(error as Error).message}`);
        await wait(retry?.baseMs ?? 1000);
      }
    }
  }

  const loops = Array.from({ length: settings.concurrency }, () => poll());
  return {
    async stop() {
      abort.abort();
      await Promise.all(loops);
      await release(carried.splice(0));
    },
  };
}
