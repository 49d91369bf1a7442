/**
 * fanOutWebhooks: reads the change-events queue, the target of the bus's rule `{"source": ["pet-store"]}`
 * (each message body an EventBridge event as JSON: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-structure.html),
 * through an SQS event source mapping with ReportBatchItemFailures. Sends one delivery message per endpoint
 * that takes the event's type, to the fast or the slow lane by the endpoint's state (docs/contract.md "History
 * and events"; docs/architecture.md "Events and webhooks"), never to an API key's endpoint whose key no longer
 * reads what it delivers (disabled instead: lib/webhooks/owner-access.ts); a message whose sends fail is reported failed and
 * seen again (at least once). The endpoints are read without their signing secrets. The body is read with
 * exact ids (lib/events/change-json.ts): the queue carries the event as text, where a Lambda target would get it
 * parsed, int64 ids past 2^53 rounded.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { exactIds } from '#lib/events/change-json.ts';
import { type ChangeEvent, eventsEnv, eventTypes, wholeSeconds } from '#lib/events/changes.ts';
import { logger } from '#lib/logger.ts';
import { processSqsBatch } from '#lib/sqs-batch.ts';
import { tables } from '#lib/tables.ts';
import { deliveryQueue } from '#lib/webhooks/delivery-queue.ts';
import { disableForKey } from '#lib/webhooks/endpoint-health.ts';
import { endpointRoutes } from '#lib/webhooks/endpoint-store.ts';
import { fanOut } from '#lib/webhooks/fan-out.ts';
import { type ChainAccess, checkedRoutes, ownerKeys } from '#lib/webhooks/owner-access.ts';

const dynamodb = createDynamoDbClient();
const endpointsTable = requiredEnv(tables.webhookEndpoints.env);
const endpoints = endpointRoutes(dynamodb, endpointsTable);
const keys = ownerKeys(dynamodb, requiredEnv(tables.apiKeys.env));
const sqs = new SQSClient({ maxAttempts: 3 });
const lanes = {
  fast: deliveryQueue(sqs, requiredEnv(eventsEnv.deliveryQueueUrl)),
  slow: deliveryQueue(sqs, requiredEnv(eventsEnv.slowLaneQueueUrl)),
};

/** The change event of a queue message's body, or undefined when it is none of the service's (logged, deleted). */
function changeEventOf(body: string, messageId: string): ChangeEvent | undefined {
  try {
    const event = JSON.parse(body, exactIds) as { 'detail-type'?: unknown; detail?: unknown; time?: unknown };
    const type = event['detail-type'];
    if (
      (eventTypes as readonly unknown[]).includes(type) &&
      typeof event.detail === 'object' &&
      event.detail
    ) {
      // A low-stock event's timestamp is the bus event's time (lib/events/bus.ts).
      const timestamp = type === 'inventory.low_stock' ? { timestamp: wholeSeconds(String(event.time)) } : {};
      return { type, data: event.detail, ...timestamp } as ChangeEvent;
    }
  } catch {
    // Not JSON: logged below.
  }
  logger.warn('ignored a message that is no change event', { messageId });
  return undefined;
}

/**
 * The endpoints this batch goes to: every one, less the API keys' endpoints whose key no longer reads what they
 * deliver, which are disabled with the reason (lib/webhooks/owner-access.ts). The keys are read once per batch,
 * only when an endpoint has an owner.
 */
async function currentRoutes(now: Date) {
  const routes = await endpoints.list();
  const owned = routes.some((route) => route.ownerKeyId !== undefined);
  const access = owned ? await keys.access(now) : new Map<string, ChainAccess>();
  return checkedRoutes(routes, access, async (route, reason) => {
    if (await disableForKey(dynamodb, endpointsTable, route.endpointId, route.ownerKeyId, reason, now)) {
      logger.warn('webhook endpoint disabled: its API key no longer reads its events', {
        endpointId: route.endpointId,
        ownerKeyId: route.ownerKeyId,
        reason,
      });
    }
  });
}

/** The Lambda handler: each bus event of the batch fanned out to its endpoints; the failed ones named. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const current = await currentRoutes(new Date());
  return processSqsBatch(
    event,
    async (record) => {
      const change = changeEventOf(record.body, record.messageId);
      if (change) await fanOut(change, current, lanes);
    },
    (record, error) =>
      logger.warn('fan-out failed, the event is seen again after its visibility timeout', {
        messageId: record.messageId,
        error: String(error),
      }),
  );
}
