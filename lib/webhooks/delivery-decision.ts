/**
 * What becomes of one message of a delivery queue, decided before its attempt ({@link admit}) and after it
 * ({@link decide}) as a {@link DeliveryAction}: pure, the clock and the jitter's random sample are inputs;
 * lib/webhooks/delivery-lanes.ts carries the actions out (docs/architecture.md "Webhook delivery: decide, then
 * act"; the rules: docs/contract.md "History and events").
 * @module
 */
import { breakerTrips } from './breaker.ts';
import { type AttemptOutcome, deliveryTimeoutMs, fastLaneTimeoutMs } from './delivery-attempt.ts';
import type { DeliveryMessage } from './delivery-message.ts';
import type { DeliverySchedule } from './delivery-settings.ts';
import type { Endpoint } from './endpoint-store.ts';
import { retryAfterSeconds, retryAfterStatuses } from './retry-after.ts';
import { jitteredDelay, maxDelaySeconds, maxVisibilityTimeoutSeconds } from './retry-schedule.ts';

/** The queue a message came from: `fast` (first attempts of enabled endpoints) or `slow`. */
export type Lane = 'fast' | 'slow';

/** What a decision reads of an endpoint. */
export type DecisionEndpoint = Pick<Endpoint, 'endpointId' | 'state' | 'failingSince'>;

/** One attempt of a delivery: its message, lane and number (1 for the event's first attempt). */
export interface Attempt {
  message: DeliveryMessage;
  lane: Lane;
  number: number;
}

/** An endpoint's bookkeeping after a delivered attempt: its failing period ends; `enable` when it was quick. */
export interface EndpointSuccess {
  enable: boolean;
}

/**
 * An endpoint's bookkeeping after a failed or cut attempt: `isolated` (the slow lane; a cut attempt starts no
 * failing period), `failing` (isolated, its failing period started at `at` unless already started), or
 * `disabled` by the breaker while still failing since `failingSince`.
 */
export type EndpointFailure =
  | { change: 'isolated' }
  | { change: 'failing'; at: Date }
  | { change: 'disabled'; failingSince: string; at: Date };

/**
 * What to do with a message (the interpreter's cases):
 * - `drop`: its endpoint is gone; the message is deleted.
 * - `delivered`: deleted; the endpoint's failing period ends when `endpoint` says so.
 * - `move`: `message` is sent to the slow lane hidden for `delaySeconds` (at most SQS's 900), this one deleted;
 *   `why`: the endpoint is not `enabled` (fast lane), the message `waiting` for its `notBefore`, the fast lane's
 *   attempt `cut`, or the attempt `failed` (the next is due at `dueAt`, carried by `notBefore` past 900 s).
 * - `retry`: this slow-lane message is seen again after `delaySeconds` (its visibility timeout), at `dueAt`.
 * - `keep`: kept in the failures table after `attempts` attempts, deleted; `why`: the endpoint is `disabled`
 *   (not attempted), the `breaker` disabled it, or the schedule's last attempt failed (`exhausted`).
 */
export type DeliveryAction =
  | { kind: 'drop' }
  | { kind: 'delivered'; endpoint?: EndpointSuccess }
  | {
      kind: 'move';
      why: 'not_enabled' | 'waiting' | 'cut' | 'failed';
      message: DeliveryMessage;
      delaySeconds: number;
      dueAt: Date;
      endpoint?: EndpointFailure;
    }
  | { kind: 'retry'; delaySeconds: number; dueAt: Date; endpoint?: EndpointFailure }
  | {
      kind: 'keep';
      why: 'disabled' | 'breaker' | 'exhausted';
      attempts: number;
      status?: number;
      error: string;
      endpoint?: EndpointFailure;
    };

/** Admitted: attempt it now, cut after `timeoutMs`. */
export interface AttemptNow<E> {
  kind: 'attempt';
  endpoint: E;
  timeoutMs: number;
}

/** What {@link decide} follows besides the attempt: the schedule, and a sample uniform in [0, 1) for its jitter. */
export interface DecisionRules extends DeliverySchedule {
  jitterSample: number;
}

/**
 * The number of a message's attempt: 1 in the fast lane; in the slow lane the attempts made before the message
 * entered it (`priorAttempts`) plus its receives (SQS `ApproximateReceiveCount`), each receive one attempt.
 */
export function attemptNumber(lane: Lane, message: DeliveryMessage, receiveCount: number): number {
  return lane === 'fast' ? 1 : (message.priorAttempts ?? 0) + receiveCount;
}

/**
 * Before the attempt: `drop` when the endpoint is gone; `keep` without an attempt when it is disabled; `move`
 * while the message waits for its `notBefore`, or from the fast lane when the endpoint is not `enabled`; else
 * the attempt, with the lane's timeout.
 */
export function admit<E extends DecisionEndpoint>(
  endpoint: E | undefined,
  attempt: Attempt,
  now: Date,
): DeliveryAction | AttemptNow<E> {
  if (!endpoint) return { kind: 'drop' };
  const { message, lane } = attempt;
  if (endpoint.state === 'disabled') {
    return {
      kind: 'keep',
      why: 'disabled',
      attempts: attempt.number - 1,
      error: 'not attempted: the endpoint is disabled',
    };
  }
  const waitMs = message.notBefore === undefined ? 0 : Date.parse(message.notBefore) - now.getTime();
  if (waitMs > 0) {
    const delaySeconds = Math.min(Math.ceil(waitMs / 1000), maxDelaySeconds);
    return {
      kind: 'move',
      why: 'waiting',
      message,
      delaySeconds,
      dueAt: new Date(message.notBefore as string),
    };
  }
  if (lane === 'fast' && endpoint.state !== 'enabled') {
    return { kind: 'move', why: 'not_enabled', message, delaySeconds: 0, dueAt: now };
  }
  return { kind: 'attempt', endpoint, timeoutMs: lane === 'fast' ? fastLaneTimeoutMs : deliveryTimeoutMs };
}

/**
 * After the attempt that ended at `now`, `durationMs` after it started: `delivered`; a fast-lane attempt cut
 * by its timeout moves to the slow lane at once (not failed); a failure trips the breaker (`keep`), or is tried
 * again after the schedule's delay with its jitter, or at least as late as a 429's or 503's `Retry-After` asks
 * (`retry` in place within SQS's 12-hour visibility timeout, else `move`), or after the last delay is kept.
 */
export function decide(
  endpoint: DecisionEndpoint,
  attempt: Attempt & { durationMs: number },
  outcome: AttemptOutcome,
  now: Date,
  rules: DecisionRules,
): DeliveryAction {
  if (outcome.delivered) {
    const quick = attempt.durationMs < fastLaneTimeoutMs;
    const recovers = endpoint.failingSince !== undefined || (endpoint.state === 'isolated' && quick);
    return { kind: 'delivered', ...(recovers && { endpoint: { enable: quick } }) };
  }
  const { message, lane } = attempt;
  if (lane === 'fast' && outcome.timedOut) {
    return {
      kind: 'move',
      why: 'cut',
      message,
      delaySeconds: 0,
      dueAt: now,
      endpoint: { change: 'isolated' },
    };
  }
  const failure = {
    attempts: attempt.number,
    error: outcome.error,
    ...(outcome.status !== undefined && { status: outcome.status }),
  };
  const { failingSince } = endpoint;
  if (breakerTrips(failingSince, now, rules.disableAfterSeconds)) {
    const endpointChange = { change: 'disabled', failingSince: failingSince as string, at: now } as const;
    return { kind: 'keep', why: 'breaker', ...failure, endpoint: endpointChange };
  }
  const endpointChange: EndpointFailure | undefined =
    failingSince === undefined || endpoint.state !== 'isolated' ? { change: 'failing', at: now } : undefined;
  const scheduled = rules.retryDelays[attempt.number - 1];
  if (scheduled === undefined) {
    return {
      kind: 'keep',
      why: 'exhausted',
      ...failure,
      ...(endpointChange && { endpoint: endpointChange }),
    };
  }
  const asked = retryAfterStatuses.includes(outcome.status ?? 0)
    ? retryAfterSeconds(outcome.retryAfter, now)
    : undefined;
  const delaySeconds = Math.max(jitteredDelay(scheduled, rules.jitterSample), asked ?? 0);
  const dueAt = new Date(now.getTime() + delaySeconds * 1000);
  const withEndpoint = endpointChange && { endpoint: endpointChange };
  if (lane === 'slow' && delaySeconds <= maxVisibilityTimeoutSeconds) {
    return { kind: 'retry', delaySeconds, dueAt, ...withEndpoint };
  }
  const { endpointId, eventId, type, timestamp, data } = message;
  return {
    kind: 'move',
    why: 'failed',
    message: {
      endpointId,
      eventId,
      type,
      timestamp,
      data,
      priorAttempts: attempt.number,
      ...(delaySeconds > maxDelaySeconds && { notBefore: dueAt.toISOString() }),
    },
    delaySeconds: Math.min(delaySeconds, maxDelaySeconds),
    dueAt,
    ...withEndpoint,
  };
}

/** When the action's next attempt is due (the attempt log's `nextAttemptAt`), or undefined when none is. */
export function nextAttemptAt(action: DeliveryAction): Date | undefined {
  return action.kind === 'move' || action.kind === 'retry' ? action.dueAt : undefined;
}
