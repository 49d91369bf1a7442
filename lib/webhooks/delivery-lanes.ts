/**
 * The delivery of one message of a delivery queue, an interpreter of the decisions of
 * lib/webhooks/delivery-decision.ts (docs/architecture.md "Webhook delivery: decide, then act"): the fast lane
 * makes the first attempt of an enabled endpoint's delivery, cut at
 * `fastLaneTimeoutMs` (lib/webhooks/delivery-attempt.ts); anything else moves
 * to the slow lane, which makes full attempts, retries after the schedule's delays, keeps the last failure, and
 * trips the breaker.
 * @module
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AttemptRecorder } from './attempt-log.ts';
import { attemptDelivery } from './delivery-attempt.ts';
import {
  admit,
  attemptNumber,
  type DeliveryAction,
  decide,
  type EndpointFailure,
  type EndpointSuccess,
  type Lane,
  nextAttemptAt,
} from './delivery-decision.ts';
import { type DeliveryMessage, parseDeliveryMessage } from './delivery-message.ts';
import type { SlowLane } from './delivery-queue.ts';
import type { DeliverySchedule } from './delivery-settings.ts';
import type { EndpointHealth } from './endpoint-health.ts';
import { type EndpointStore, signingSecrets } from './endpoint-store.ts';
import type { FailureStore } from './failures.ts';
import type { UrlPolicy } from './url-guard.ts';

export type { Lane } from './delivery-decision.ts';

/** What the delivery works with. */
export interface DeliveryDependencies {
  endpoints: Pick<EndpointStore, 'get'>;
  health: EndpointHealth;
  failures: Pick<FailureStore, 'put'>;
  /** The slow lane: moves go there, and its retries wait there. */
  slowLane: SlowLane;
  /**
   * Deletes a message of `lane` once it is handled (any result but `retry`), before its batch ends: the fair
   * queue then charges its endpoint only its own attempt's time (docs/architecture.md "Delivery isolation: a
   * fast lane and a slow lane").
   */
  handled(record: SQSRecord, lane: Lane): Promise<void>;
  /** The retry delays and the breaker's period (lib/webhooks/delivery-settings.ts). */
  schedule: DeliverySchedule;
  /** A sample uniform in [0, 1) for a delay's jitter (`Math.random`). */
  random(): number;
  policy: UrlPolicy;
  /** The clock of decisions, failures and the breaker. */
  now(): Date;
  /** Called once per delivery kept after its schedule's last attempt (the `WebhookDeliveriesFailed` metric). */
  onFailureKept(): void;
  /** Called when this message's failure disabled its endpoint (the `WebhookEndpointsDisabled` metric). */
  onDisabled(): void;
  /** Logs what happened to a message that was not delivered. */
  log(message: string, details: Record<string, unknown>): void;
  /** Logs one line per delivery attempt, at INFO (docs/operating.md "Access logs"). */
  info(message: string, details: Record<string, unknown>): void;
  /** Records each attempt once its outcome is known (listWebhookAttempts: lib/webhooks/attempt-log.ts). */
  attempts?: AttemptRecorder;
}

/** What became of one message: the kind of the action carried out. */
export type MessageResult = DeliveryAction['kind'];

/** The log lines' details of one attempt. */
type AttemptDetails = Record<string, unknown>;

/**
 * One message of `lane`: parsed (not a delivery: dropped), admitted, attempted, decided on, its attempt
 * recorded with its next time, and the decision carried out.
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
    return 'drop';
  }
  const number = attemptNumber(lane, message, Number(record.attributes.ApproximateReceiveCount));
  const attempt = { message, lane, number };
  const endpoint = await deps.endpoints.get(message.endpointId);
  const admission = admit(endpoint, attempt, deps.now());
  if (admission.kind !== 'attempt') return carryOut(admission, record, message, { attempt: number }, deps);

  const started = Date.now();
  const outcome = await attemptDelivery(message, {
    url: admission.endpoint.url,
    secret: signingSecrets(admission.endpoint, deps.now()),
    policy: deps.policy,
    timeoutMs: admission.timeoutMs,
  });
  const durationMs = Date.now() - started;
  const status = outcome.status !== undefined && { status: outcome.status };
  deps.info('webhook attempt', {
    endpointId: message.endpointId,
    eventId: message.eventId,
    attempt: number,
    ...status,
    ms: durationMs,
  });
  const action = decide(admission.endpoint, { ...attempt, durationMs }, outcome, deps.now(), {
    ...deps.schedule,
    jitterSample: deps.random(),
  });
  await deps.attempts?.record({
    message,
    attempt: number,
    outcome,
    started,
    nextAttemptAt: nextAttemptAt(action),
  });
  const details = {
    endpointId: message.endpointId,
    eventId: message.eventId,
    attempt: number,
    ...status,
    ...(!outcome.delivered && { error: outcome.error }),
  };
  return carryOut(action, record, message, details, deps);
}

/**
 * Carries out `action` for the message `record` (parsed: `message`): the endpoint's bookkeeping first, then the
 * queue or the failures table; `details` go into its log lines.
 */
async function carryOut(
  action: DeliveryAction,
  record: SQSRecord,
  message: DeliveryMessage,
  details: AttemptDetails,
  deps: DeliveryDependencies,
): Promise<MessageResult> {
  const endpointId = message.endpointId;
  if (action.kind === 'delivered' && action.endpoint) {
    await processEndpointSuccess(endpointId, action.endpoint, deps);
  } else if (action.kind !== 'delivered' && 'endpoint' in action && action.endpoint) {
    await processEndpointFailure(endpointId, action.endpoint, details, deps);
  }
  switch (action.kind) {
    case 'drop':
    case 'delivered':
      break;
    case 'move':
      await deps.slowLane.move(action.message, action.delaySeconds);
      if (action.why === 'cut') deps.log('webhook attempt cut, moved to the slow lane', details);
      if (action.why === 'failed')
        deps.log('webhook attempt failed, retried later', { ...details, nextAttemptAt: action.dueAt });
      break;
    case 'retry':
      deps.log('webhook attempt failed, retried later', { ...details, nextAttemptAt: action.dueAt });
      await deps.slowLane.retryAfter(record.receiptHandle, action.delaySeconds);
      break;
    case 'keep': {
      const { attempts, status, error } = action;
      const { endpointId, eventId, type, timestamp, data } = message;
      await deps.failures.put({
        endpointId,
        eventId,
        type,
        timestamp,
        data,
        attempts,
        ...(status !== undefined && { lastStatus: status }),
        lastError: error,
        failedAt: deps.now().toISOString(),
      });
      if (action.why === 'exhausted') {
        deps.onFailureKept();
        deps.log('webhook delivery failed for good, kept as a failure', details);
      }
      break;
    }
  }
  return action.kind;
}

/**
 * An endpoint's bookkeeping after a delivered attempt (Svix's `process_endpoint_success`): its failing period
 * ends, and it is `enabled` again when the attempt was quick.
 */
async function processEndpointSuccess(
  endpointId: string,
  success: EndpointSuccess,
  deps: DeliveryDependencies,
) {
  await deps.health.delivered(endpointId, success.enable);
}

/**
 * An endpoint's bookkeeping after a failed or cut attempt (Svix's `process_endpoint_failure`): isolated, its
 * failing period started, or disabled by the breaker (counted and logged when this call disabled it).
 */
async function processEndpointFailure(
  endpointId: string,
  failure: EndpointFailure,
  details: AttemptDetails,
  deps: DeliveryDependencies,
) {
  if (failure.change === 'isolated') return deps.health.isolate(endpointId);
  if (failure.change === 'failing') return deps.health.isolate(endpointId, failure.at);
  if (await deps.health.disable(endpointId, failure.failingSince, failure.at)) {
    deps.onDisabled();
    deps.log('webhook endpoint disabled', { ...details, failingSince: failure.failingSince });
  }
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
