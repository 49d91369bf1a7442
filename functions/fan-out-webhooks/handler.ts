/**
 * fanOutWebhooks: the target of the bus's rule `{"source": ["pet-store"]}`, invoked asynchronously with each
 * change event (EventBridge event envelope: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-structure.html).
 * Sends one delivery message per subscription that takes the event's type (docs/contract.md "History and
 * events"); any failure throws, and Lambda's asynchronous retries invoke it again (at least once).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { EventBridgeEvent } from 'aws-lambda';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import {
  type ChangeEvent,
  eventsEnv,
  eventTypes,
  type InventoryChange,
  type OrderChange,
} from '#lib/events/changes.ts';
import { logger } from '#lib/logger.ts';
import { tables } from '#lib/tables.ts';
import { deliveryQueue } from '#lib/webhooks/delivery-queue.ts';
import { fanOut } from '#lib/webhooks/fan-out.ts';
import { subscriptionStore } from '#lib/webhooks/subscriptions.ts';

const dynamoDb = createDynamoDbClient();
const subscriptions = subscriptionStore(dynamoDb, requiredEnv(tables.webhookSubscriptions.env));
const queue = deliveryQueue(new SQSClient({ maxAttempts: 3 }), requiredEnv(eventsEnv.deliveryQueueUrl));

/** The Lambda handler: one bus event in, its delivery messages out. */
export async function handler(
  event: EventBridgeEvent<string, InventoryChange | OrderChange>,
): Promise<{ messages: number }> {
  if (!(eventTypes as readonly string[]).includes(event['detail-type'])) {
    logger.warn('ignored an event of another type', { detailType: event['detail-type'], id: event.id });
    return { messages: 0 };
  }
  const change = { type: event['detail-type'], data: event.detail } as ChangeEvent;
  const messages = await fanOut(change, await subscriptions.list(), queue);
  return { messages: messages.length };
}
