/**
 * @module The local EventBridge buses: PutEvents builds each entry's event envelope, matches it against the
 * rules of its bus and delivers it to their targets (behaviour.md V1-V6).
 * @see https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html
 * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-structure.html
 */
import { randomUUID } from 'node:crypto';
import type { LambdaFunction } from '../lambda/lambda-runtime.ts';
import type { LocalQueues } from '../sqs/queues.ts';
import type { RuleModel } from './events-model.ts';

/** A `PutEventsRequestEntry` as the JSON protocol carries it. */
export interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Resources?: string[];
  Time?: number | string;
}

/** A `PutEventsResultEntry`. */
export type PutEventsResultEntry = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

/** An EventBridge event as rules and targets see it. */
export interface EventEnvelope {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
}

/** An EventBridge error answered for the whole request. */
export class EventBridgeError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

/** The most entries one PutEvents takes. */
export const maxEntries = 10;
/** The largest entry (and request), in bytes: 256 KB. */
export const maxEntryBytes = 256 * 1024;

/**
 * Lambda's asynchronous invocation retries of a function error: two retries, one minute before the first
 * and two minutes before the second (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html).
 */
export const asyncRetryDelaysMs = [60_000, 120_000];

/** How the bus reaches its targets. */
export interface BusTargets {
  /** The local function of a target's logical id. */
  functionOf(logicalId: string): LambdaFunction;
  queues: LocalQueues;
  region: string;
  account: string;
  /** Delays before each retry of a failed asynchronous invocation (default {@link asyncRetryDelaysMs}). */
  retryDelaysMs?: number[];
  /** Retries of a function (its `EventInvokeConfig` `MaximumRetryAttempts`), by logical id; absent: 2. */
  asyncRetries?: Record<string, number>;
}

/** The event time: the entry's `Time` (epoch seconds, as the JSON protocol sends it), else now; whole seconds. */
function eventTime(time: PutEventsEntry['Time']): string {
  const date = time === undefined ? new Date() : new Date(typeof time === 'number' ? time * 1000 : time);
  const valid = Number.isNaN(date.getTime()) ? new Date() : date;
  return valid.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Why an entry is refused (its ErrorCode and ErrorMessage, as EventBridge words them), or its detail. */
function entryDetail(
  entry: PutEventsEntry,
): { detail: unknown } | { ErrorCode: string; ErrorMessage: string } {
  for (const name of ['Source', 'DetailType', 'Detail'] as const) {
    if (typeof entry[name] !== 'string' || entry[name] === '') {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${name} is not valid. Reason: ${name} is a required argument.`,
      };
    }
  }
  let detail: unknown;
  try {
    detail = JSON.parse(entry.Detail as string);
  } catch {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  }
  if (detail === null || typeof detail !== 'object' || Array.isArray(detail))
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  return { detail };
}

/**
 * The JSON text of `event` as an SQS target receives it, its `detail` the entry's Detail text as sent, so that
 * numbers reach the queue digit for digit (an int64 id past 2^53 too: behaviour.md V5).
 */
function eventJson(event: EventEnvelope, detailText: string): string {
  const { detail: _, ...envelope } = event;
  return `${JSON.stringify(envelope).slice(0, -1)},"detail":${detailText.trim()}}`;
}

/** The local buses of a template: their rules and the delivery to targets. */
export class EventBuses {
  private readonly names: Set<string>;
  private readonly rules: RuleModel[];
  private readonly targets: BusTargets;
  private readonly deliveries = new Set<Promise<void>>();
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private closed = false;

  constructor(busNames: string[], rules: RuleModel[], targets: BusTargets) {
    this.names = new Set(['default', ...busNames]);
    this.rules = rules;
    this.targets = targets;
  }

  /**
   * PutEvents: one result per entry, in order; each accepted entry is matched against the rules of its bus.
   * It answers once the entries' messages to SQS targets are stored in their queues (an accepted event is not
   * lost when the process stops: behaviour.md Q9); Lambda targets are invoked after this answer
   * (they never delay the caller).
   * @throws EventBridgeError ValidationException (no entries, more than 10), ResourceNotFoundException (no such
   *   bus); a queue's journal error (nothing is acknowledged: the caller retries)
   */
  async putEvents(entries: PutEventsEntry[] | undefined): Promise<{
    FailedEntryCount: number;
    Entries: PutEventsResultEntry[];
  }> {
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > maxEntries) {
      throw new EventBridgeError(
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${maxEntries} and greater than or equal to 1`,
      );
    }
    for (const entry of entries) {
      const bus = (entry.EventBusName ?? 'default').split('/').pop() as string;
      if (!this.names.has(bus))
        throw new EventBridgeError('ResourceNotFoundException', `Event bus ${bus} does not exist.`);
    }
    const stored: Promise<unknown>[] = [];
    const results = entries.map((entry): PutEventsResultEntry => {
      const checked = entryDetail(entry);
      if (!('detail' in checked)) return checked;
      if (Buffer.byteLength(JSON.stringify(entry)) > maxEntryBytes) {
        return {
          ErrorCode: 'InvalidArgument',
          ErrorMessage: 'Total size of the entries in the request is over the limit.',
        };
      }
      const event: EventEnvelope = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType as string,
        source: entry.Source as string,
        account: this.targets.account,
        time: eventTime(entry.Time),
        region: this.targets.region,
        resources: entry.Resources ?? [],
        detail: checked.detail,
      };
      stored.push(
        ...this.route(
          (entry.EventBusName ?? 'default').split('/').pop() as string,
          event,
          entry.Detail as string,
        ),
      );
      return { EventId: event.id };
    });
    await Promise.all(stored);
    return {
      FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
      Entries: results,
    };
  }

  /**
   * Delivers `event` (its detail sent as `detailText`) to every target of every rule of `bus` that matches it.
   * @returns the sends to SQS targets, each settled once its message is stored
   */
  private route(bus: string, event: EventEnvelope, detailText: string): Promise<unknown>[] {
    const sends: Promise<unknown>[] = [];
    for (const rule of this.rules) {
      if (rule.busName !== bus || !rule.matches(event)) continue;
      for (const target of rule.targets) {
        if (target.kind === 'sqs') {
          const queue = this.targets.queues.find(target.queueId);
          if (queue) sends.push(queue.send(eventJson(event, detailText), { senderId: 'events' }));
        } else {
          this.track(this.invokeAsync(this.targets.functionOf(target.functionId), event));
        }
      }
    }
    return sends;
  }

  private track(delivery: Promise<void>): void {
    this.deliveries.add(delivery);
    void delivery.finally(() => this.deliveries.delete(delivery));
  }

  /** An asynchronous invocation: the first attempt after this turn, then Lambda's retries of function errors. */
  private async invokeAsync(fn: LambdaFunction, event: EventEnvelope): Promise<void> {
    const retries = this.targets.asyncRetries?.[fn.config.logicalId] ?? 2;
    const delays = (this.targets.retryDelaysMs ?? asyncRetryDelaysMs).slice(0, retries);
    await this.wait(0);
    for (let attempt = 0; attempt <= delays.length && !this.closed; attempt++) {
      if (attempt > 0) await this.wait(delays[attempt - 1] as number);
      if (this.closed) return;
      const outcome = await fn.invoke(event).catch((error: Error) => ({
        type: 'error' as const,
        errorType: error.name,
        errorMessage: error.message,
      }));
      if (outcome.type !== 'error') return;
      process.stderr.write(
        `${new Date().toISOString()} ${fn.config.logicalId} asynchronous invocation (attempt ${attempt + 1}) failed: ${outcome.errorType}: ${outcome.errorMessage}\n`,
      );
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        resolve,
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, ms),
      };
      this.timers.add(entry);
    });
  }

  /** Stops retrying (pending retries are dropped) and waits for the invocations running to end. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.timers) {
      clearTimeout(entry.timer);
      entry.resolve();
    }
    this.timers.clear();
    await Promise.allSettled([...this.deliveries]);
  }
}
