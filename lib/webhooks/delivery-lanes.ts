/**
 * The delivery of one message of a delivery queue (docs/contract.md "History and events"; docs/architecture.md
 * "Events and webhooks"): the fast lane makes the first attempt of an enabled subscription's delivery, cut at
 * {@link fastLaneTimeoutMs}; anything else moves to the slow lane, which makes full attempts, retries after the
 * schedule's delays, keeps the last failure, and trips the breaker.
 * @module
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AttemptRecorder } from './attempt-log.ts';
import {
  type AttemptOutcome,
  attemptDelivery,
  deliveryTimeoutMs,
  fastLaneTimeoutMs,
} from './delivery-attempt.ts';
import { type DeliveryMessage, parseDeliveryMessage } from './delivery-message.ts';
import type { SlowLane } from './delivery-queue.ts';
import type { FailureStore } from './failures.ts';
import type { SubscriptionHealth } from './subscription-health.ts';
import { type SubscriptionStore, signingSecrets } from './subscriptions.ts';
import type { UrlPolicy } from './url-guard.ts';

/** The queue a message came from: `fast` (first attempts of enabled subscriptions) or `slow`. */
export type Lane = 'fast' | 'slow';

/** What the delivery works with. */
export interface DeliveryDependencies {
  subscriptions: Pick<SubscriptionStore, 'get'>;
  health: SubscriptionHealth;
  failures: Pick<FailureStore, 'put'>;
  /** The slow lane: moves go there, and its retries wait there. */
  slowLane: SlowLane;
  /**
   * Deletes a message of `lane` once it is handled (any result but `retry`), before its batch ends: the fair
   * queue then charges its endpoint only its own attempt's time (docs/architecture.md "Delivery isolation: a
   * fast lane and a slow lane").
   */
  handled(record: SQSRecord, lane: Lane): Promise<void>;
  /** The delays in seconds before attempts 2, 3, ... (lib/webhooks/retry-schedule.ts). */
  retryDelays: readonly number[];
  /** The breaker's period in seconds (lib/webhooks/breaker.ts). */
  disableAfterSeconds: number;
  policy: UrlPolicy;
  /** The clock of failures and of the breaker. */
  now(): Date;
  /** Called once per delivery kept after its schedule's last attempt (the `WebhookDeliveriesFailed` metric). */
  onFailureKept(): void;
  /** Called when this message's failure disabled its subscription (the `WebhookEndpointsDisabled` metric). */
  onDisabled(): void;
  /** Logs what happened to a message that was not delivered. */
  log(message: string, details: Record<string, unknown>): void;
  /** Logs one line per delivery attempt, at INFO (docs/operating.md "Access logs"). */
  info(message: string, details: Record<string, unknown>): void;
  /** Records each attempt once its outcome is known (listWebhookAttempts: lib/webhooks/attempt-log.ts). */
  attempts?: AttemptRecorder;
}

/**
 * What became of one message: delivered or dropped (deleted), moved to the slow lane (deleted here), retried later
 * in the slow lane (reported failed), or kept as a failure (deleted).
 */
export type MessageResult = 'delivered' | 'dropped' | 'moved' | 'retry' | 'kept';

/**
 * One message of `lane`: its subscription (gone: dropped); disabled: kept as a failure without an attempt; in the
 * fast lane and not enabled: moved to the slow lane without an attempt; else one attempt, and on failure either
 * the next try after the schedule's delay (attempt = priorAttempts + ApproximateReceiveCount in the slow lane, 1
 * in the fast lane), or a PutItem into the failures table, or the breaker.
 * @throws Error when a store or a queue fails (the message is then reported failed and seen again).
 */
export async function deliverMessage(
  record: SQSRecord,
  lane: Lane,
  deps: DeliveryDependencies,
): Promise<MessageResult> {
  let message: DeliveryMessage;
  try {
    message = parseDeliveryMessage(record.body);
  } catch (error) {
    deps.log('dropped a message that is not a delivery', {
      messageId: record.messageId,
      error: String(error),
    });
    return 'dropped';
  }
  const { priorAttempts = 0, ...delivery } = message;
  const subscription = await deps.subscriptions.get(delivery.subscriptionId);
  if (!subscription) return 'dropped';
  const attempt = lane === 'fast' ? 1 : priorAttempts + Number(record.attributes.ApproximateReceiveCount);
  const keep = (attempts: number, outcome: { status?: number; error: string }) =>
    deps.failures.put({
      ...delivery,
      attempts,
      ...(outcome.status !== undefined && { lastStatus: outcome.status }),
      lastError: outcome.error,
      failedAt: deps.now().toISOString(),
    });
  if (subscription.state === 'disabled') {
    await keep(attempt - 1, { error: 'not attempted: the subscription is disabled' });
    return 'kept';
  }
  if (lane === 'fast' && subscription.state !== 'enabled') {
    await deps.slowLane.move(delivery, 0);
    return 'moved';
  }

  const started = Date.now();
  const outcome: AttemptOutcome = await attemptDelivery(delivery, {
    url: subscription.url,
    secret: signingSecrets(subscription, deps.now()),
    policy: deps.policy,
    timeoutMs: lane === 'fast' ? fastLaneTimeoutMs : deliveryTimeoutMs,
  });
  deps.info('webhook attempt', {
    endpointId: delivery.subscriptionId,
    eventId: delivery.eventId,
    attempt,
    ...(outcome.status !== undefined && { status: outcome.status }),
    ms: Date.now() - started,
  });
  await deps.attempts?.record({ message: delivery, lane, attempt, outcome, started, subscription });
  if (outcome.delivered) {
    const quick = Date.now() - started < fastLaneTimeoutMs;
    if (subscription.failingSince !== undefined || (subscription.state === 'isolated' && quick)) {
      await deps.health.delivered(subscription.subscriptionId, quick);
    }
    return 'delivered';
  }
  const details = {
    subscriptionId: delivery.subscriptionId,
    eventId: delivery.eventId,
    attempt,
    ...(outcome.status !== undefined && { status: outcome.status }),
    error: outcome.error,
  };
  if (lane === 'fast' && outcome.timedOut) {
    // Cut, not failed: the slow lane makes this first attempt again with the full timeout.
    await deps.health.isolate(subscription.subscriptionId);
    await deps.slowLane.move(delivery, 0);
    deps.log('webhook attempt cut, moved to the slow lane', details);
    return 'moved';
  }
  // A failed attempt: the breaker, the next try, or the failures table.
  const now = deps.now();
  const { subscriptionId, failingSince } = subscription;
  if (
    failingSince !== undefined &&
    now.getTime() - Date.parse(failingSince) >= deps.disableAfterSeconds * 1000
  ) {
    if (await deps.health.disable(subscriptionId, failingSince, now)) {
      deps.onDisabled();
      deps.log('webhook subscription disabled', { ...details, failingSince });
    }
    await keep(attempt, outcome);
    return 'kept';
  }
  if (failingSince === undefined || subscription.state !== 'isolated') {
    await deps.health.isolate(subscriptionId, now);
  }
  if (attempt <= deps.retryDelays.length) {
    const delay = deps.retryDelays[attempt - 1] as number;
    deps.log('webhook attempt failed, retried later', details);
    if (lane === 'slow') {
      await deps.slowLane.retryAfter(record.receiptHandle, delay);
      return 'retry';
    }
    await deps.slowLane.move({ ...delivery, priorAttempts: attempt }, delay);
    return 'moved';
  }
  await keep(attempt, outcome);
  deps.onFailureKept();
  deps.log('webhook delivery failed for good, kept as a failure', details);
  return 'kept';
}

/**
 * The SQS batch, every message in parallel in the lane `laneOf` names: the response's `batchItemFailures` names
 * the messages to see again (slow-lane retries, and any whose handling threw); the others are deleted as soon as
 * each is handled ({@link DeliveryDependencies.handled}), and again by the event source mapping
 * (ReportBatchItemFailures; a second delete of a message succeeds). A loop of its own rather than Powertools' batch utility, which
 * fanOutWebhooks uses: here it would take the bundle over its budget (docs/architecture.md "Events and webhooks").
 */
export async function deliverMessages(
  event: SQSEvent,
  laneOf: (record: SQSRecord) => Lane,
  deps: DeliveryDependencies,
): Promise<SQSBatchResponse> {
  const results = await Promise.allSettled(
    event.Records.map(async (record) => {
      const lane = laneOf(record);
      const result = await deliverMessage(record, lane, deps);
      if (result !== 'retry') {
        await deps.handled(record, lane).catch((error: unknown) =>
          // Deleted by the mapping at the batch's end instead.
          deps.log('webhook message not deleted early', {
            messageId: record.messageId,
            error: String(error),
          }),
        );
      }
      return result;
    }),
  );
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  results.forEach((result, index) => {
    const record = event.Records[index] as SQSRecord;
    if (result.status === 'rejected') {
      deps.log('webhook message not handled, seen again after its visibility timeout', {
        messageId: record.messageId,
        error: String(result.reason),
      });
    }
    if (result.status === 'rejected' || result.value === 'retry') {
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  });
  return { batchItemFailures };
}
