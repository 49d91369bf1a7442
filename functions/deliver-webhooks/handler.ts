/**
 * deliverWebhooks: reads both delivery queues, the fast lane and the slow lane, through SQS event source mappings
 * with ReportBatchItemFailures (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html):
 * each message one signed POST. The fast lane's attempts are cut at 2 s and anything not delivered there moves
 * to the slow lane; a failed slow-lane attempt is made visible again after the retry schedule's delay with its
 * jitter, or as late as a 429's or 503's `Retry-After` asks (ChangeMessageVisibility), and reported failed, or after the last delay kept in the failures table; every other
 * message is deleted as soon as it is handled (the fair queues charge each endpoint its own time); each attempt
 * is recorded in the attempts table once its outcome is known (listWebhookAttempts); a
 * endpoint that failed every attempt for the breaker's period is disabled (docs/contract.md "History and
 * events"; docs/architecture.md "Events and webhooks").
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { logger } from '#lib/logger.ts';
import { metrics } from '#lib/metrics.ts';
import { tables } from '#lib/tables.ts';
import { attemptRecorder } from '#lib/webhooks/attempt-log.ts';
import { type DeliveryDependencies, deliverMessages } from '#lib/webhooks/delivery-lanes.ts';
import { deleteHandled, slowLane } from '#lib/webhooks/delivery-queue.ts';
import { deliveryScheduleFrom } from '#lib/webhooks/delivery-settings.ts';
import { endpointHealth } from '#lib/webhooks/endpoint-health.ts';
import { endpointReader } from '#lib/webhooks/endpoint-store.ts';
import { failureWriter } from '#lib/webhooks/failures.ts';
import { webhookMetrics } from '#lib/webhooks/metric-names.ts';
import { urlPolicyFrom } from '#lib/webhooks/url-guard.ts';

const dynamoDb = createDynamoDbClient();
const endpointsTable = requiredEnv(tables.webhookEndpoints.env);
const slowLaneArn = requiredEnv(eventsEnv.slowLaneQueueArn);
const sqs = new SQSClient({ maxAttempts: 3 });
const laneUrls = {
  fast: requiredEnv(eventsEnv.deliveryQueueUrl),
  slow: requiredEnv(eventsEnv.slowLaneQueueUrl),
};
/** Metrics added in this invocation, published when any was (docs/operating.md "Metrics"). */
let added = 0;

/** Adds 1 to the metric `name`. */
function count(name: string) {
  added++;
  metrics.addMetric(name, MetricUnit.Count, 1);
}

/** Logs a delivery's trouble as a warning. */
const log = (message: string, details: Record<string, unknown>) => logger.warn(message, details);

const deps: DeliveryDependencies = {
  endpoints: endpointReader(dynamoDb, endpointsTable),
  health: endpointHealth(dynamoDb, endpointsTable),
  failures: failureWriter(dynamoDb, requiredEnv(tables.webhookFailures.env)),
  slowLane: slowLane(sqs, laneUrls.slow),
  handled: (record, lane) => deleteHandled(sqs, laneUrls[lane], record.receiptHandle),
  schedule: deliveryScheduleFrom(process.env),
  random: Math.random,
  policy: urlPolicyFrom(process.env[eventsEnv.urlPolicy]),
  now: () => new Date(),
  onFailureKept: () => count(webhookMetrics.deliveriesFailed),
  onDisabled: () => count(webhookMetrics.endpointsDisabled),
  log,
  info: (message, details) => logger.info(message, details),
  attempts: attemptRecorder(dynamoDb, requiredEnv(tables.webhookAttempts.env), log),
};

/**
 * The Lambda handler: the batch's messages in parallel, in the lane of their queue; the ones to see again named
 * for the mapping. Each delivery kept after its last attempt counts 1 in `WebhookDeliveriesFailed`, each
 * endpoint disabled 1 in `WebhookEndpointsDisabled` (docs/operating.md "Metrics").
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  added = 0;
  try {
    return await deliverMessages(
      event,
      (record) => (record.eventSourceARN === slowLaneArn ? 'slow' : 'fast'),
      deps,
    );
  } finally {
    if (added > 0) metrics.publishStoredMetrics();
  }
}
