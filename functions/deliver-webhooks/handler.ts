/**
 * deliverWebhooks: reads the webhook delivery queue through an SQS event source mapping with
 * ReportBatchItemFailures (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html): each
 * message one signed POST; a failed one made visible again after the retry schedule's delay
 * (ChangeMessageVisibility) and reported failed, or after the last delay kept in the failures table
 * (docs/contract.md "History and events").
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
import { deliverMessages } from '#lib/webhooks/deliver-messages.ts';
import { type DeliveryQueue, deliveryRetries, queueUrlOfArn } from '#lib/webhooks/delivery-queue.ts';
import { failureWriter } from '#lib/webhooks/failures.ts';
import { retryDelaysFrom } from '#lib/webhooks/retry-schedule.ts';
import { subscriptionReader } from '#lib/webhooks/subscriptions.ts';
import { urlPolicyFrom } from '#lib/webhooks/url-guard.ts';

const sqs = new SQSClient({ maxAttempts: 3 });
const dynamoDb = createDynamoDbClient();
const subscriptions = subscriptionReader(dynamoDb, requiredEnv(tables.webhookSubscriptions.env));
const failures = failureWriter(dynamoDb, requiredEnv(tables.webhookFailures.env));
const retryDelays = retryDelaysFrom(process.env[eventsEnv.retryDelays]);
const policy = urlPolicyFrom(process.env[eventsEnv.urlPolicy]);
/** The queue by its ARN, its URL asked of SQS on first use unless WEBHOOK_DELIVERY_QUEUE_URL names it. */
const queues = new Map<string, Pick<DeliveryQueue, 'retryAfter'>>();

function queueOf(arn: string): Pick<DeliveryQueue, 'retryAfter'> {
  let queue = queues.get(arn);
  if (!queue) {
    const configuredUrl = process.env[eventsEnv.deliveryQueueUrl];
    queue = deliveryRetries(sqs, configuredUrl || (() => queueUrlOfArn(sqs, arn)));
    queues.set(arn, queue);
  }
  return queue;
}

/**
 * The Lambda handler: the batch's messages in parallel; the failed ones named for the mapping to retry. Each
 * delivery kept as a failure counts 1 in `WebhookDeliveriesFailed` (docs/operating.md "Metrics").
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  let kept = 0;
  try {
    return await deliverMessages(event, {
      subscriptions,
      failures,
      queue: queueOf(event.Records[0]?.eventSourceARN ?? ''),
      retryDelays,
      policy,
      onFailureKept: () => {
        kept++;
        metrics.addMetric('WebhookDeliveriesFailed', MetricUnit.Count, 1);
      },
      log: (message, details) => logger.warn(message, details),
    });
  } finally {
    if (kept > 0) metrics.publishStoredMetrics();
  }
}
