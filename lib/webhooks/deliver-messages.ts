/**
 * The delivery of the queue's messages (docs/contract.md "History and events"): each message one attempt; a
 * failed attempt is retried after the schedule's next delay, and after the last one kept as a failure.
 * @module
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type AttemptOutcome, type AttemptTarget, attemptDelivery } from './delivery.ts';
import { parseDeliveryMessage } from './delivery-message.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { FailureStore } from './failures.ts';
import type { SubscriptionStore } from './subscriptions.ts';
import type { UrlPolicy } from './url-guard.ts';

/** What the delivery works with. */
export interface DeliveryDependencies {
  subscriptions: Pick<SubscriptionStore, 'get'>;
  failures: Pick<FailureStore, 'put'>;
  queue: Pick<DeliveryQueue, 'retryAfter'>;
  /** The delays in seconds before attempts 2, 3, ... (lib/webhooks/retry-schedule.ts). */
  retryDelays: readonly number[];
  policy: UrlPolicy;
  /** Called once per delivery kept as a failure (the `WebhookDeliveriesFailed` metric). */
  onFailureKept(): void;
  /** Logs what happened to a message that was not delivered. */
  log(message: string, details: Record<string, unknown>): void;
  /** Overrides of the attempt (tests: timeout). */
  attempt?: Partial<Pick<AttemptTarget, 'timeoutMs' | 'lookup'>>;
}

/** What became of one message: delivered or dropped (deleted), retried later, or kept as a failure (deleted). */
export type MessageResult = 'delivered' | 'dropped' | 'retry' | 'kept';

/**
 * One message: its subscription (gone: dropped), one attempt, then on failure, with attempt =
 * ApproximateReceiveCount, either ChangeMessageVisibility to the schedule's delay (attempt <= delays) or a
 * PutItem into the failures table.
 * @throws Error when a store or the queue fails (the message is then reported failed and seen again).
 */
export async function deliverMessage(record: SQSRecord, deps: DeliveryDependencies): Promise<MessageResult> {
  let message: ReturnType<typeof parseDeliveryMessage>;
  try {
    message = parseDeliveryMessage(record.body);
  } catch (error) {
    deps.log('dropped a message that is not a delivery', {
      messageId: record.messageId,
      error: String(error),
    });
    return 'dropped';
  }
  const subscription = await deps.subscriptions.get(message.subscriptionId);
  if (!subscription) return 'dropped';
  const outcome: AttemptOutcome = await attemptDelivery(message, {
    url: subscription.url,
    secret: subscription.secret,
    policy: deps.policy,
    ...deps.attempt,
  });
  if (outcome.delivered) return 'delivered';
  const attempt = Number(record.attributes.ApproximateReceiveCount);
  const details = {
    subscriptionId: message.subscriptionId,
    eventId: message.eventId,
    attempt,
    ...(outcome.status !== undefined && { status: outcome.status }),
    error: outcome.error,
  };
  if (attempt <= deps.retryDelays.length) {
    await deps.queue.retryAfter(record.receiptHandle, deps.retryDelays[attempt - 1] as number);
    deps.log('webhook attempt failed, retried later', details);
    return 'retry';
  }
  await deps.failures.put({
    ...message,
    attempts: attempt,
    ...(outcome.status !== undefined && { lastStatus: outcome.status }),
    lastError: outcome.error,
    failedAt: new Date().toISOString(),
  });
  deps.onFailureKept();
  deps.log('webhook delivery failed for good, kept as a failure', details);
  return 'kept';
}

/**
 * The SQS batch, every message in parallel (one slow subscriber never holds another): the response's
 * `batchItemFailures` names the messages to see again (retries, and any whose handling threw), the others are
 * deleted by the event source mapping (ReportBatchItemFailures).
 */
export async function deliverMessages(
  event: SQSEvent,
  deps: DeliveryDependencies,
): Promise<SQSBatchResponse> {
  const results = await Promise.allSettled(event.Records.map((record) => deliverMessage(record, deps)));
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
