/**
 * @module The local EventBridge buses: an event put on a bus (eventbridge/api.ts's PutEvents) is matched against
 * the rules of its bus and delivered to their targets (behaviour.md V1-V6).
 * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-structure.html
 */
import type { LambdaFunction } from '../lambda/lambda-runtime.ts';
import type { LocalQueues } from '../sqs/queues.ts';
import type { RuleModel } from './events-model.ts';

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

  /** Whether `name` is a bus of the template (or `default`). */
  has(name: string): boolean {
    return this.names.has(name);
  }

  /** The account and region of the events put on the buses. */
  get origin(): { account: string; region: string } {
    return { account: this.targets.account, region: this.targets.region };
  }

  /**
   * Delivers `event` (its detail sent as `detailText`) to every target of every rule of `bus` that matches it:
   * Lambda targets are invoked after this turn (they never delay the caller).
   * @returns the sends to SQS targets, each settled once its message is stored
   */
  publish(bus: string, event: EventEnvelope, detailText: string): Promise<unknown>[] {
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
