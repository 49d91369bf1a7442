/**
 * recordChanges: the consumer of the inventory and orders tables' DynamoDB streams (lib/api.ts
 * `eventFunctions`), invoked by an event source mapping with a batch of stream records. Event format:
 * https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html (DynamoDBStreamEvent); it answers nothing and
 * throws on any failure, so the mapping retries the batch (docs/architecture.md "Change records").
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { eventBridgeClient } from '#lib/clients/eventbridge.ts';
import { requiredEnv } from '#lib/env.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { changeRecorder } from '#lib/events/record-changes.ts';
import { logger } from '#lib/logger.ts';
import { tables } from '#lib/tables.ts';

const record = changeRecorder({
  dynamoDb: documentClient,
  eventBridge: eventBridgeClient,
  inventoryTable: requiredEnv(tables.inventory.env),
  historyTable: requiredEnv(tables.inventoryHistory.env),
  eventsTable: requiredEnv(tables.events.env),
  busName: requiredEnv(eventsEnv.busName),
});

/** The Lambda handler: records the batch's changes, or throws (the whole batch is retried). */
export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  try {
    const { published, written } = await record(event.Records);
    logger.info('change records', { records: event.Records.length, published, written });
  } catch (error) {
    const { name, message } = error as Error;
    logger.error('change records failed; the batch is retried', {
      records: event.Records.length,
      name,
      message,
    });
    throw error;
  }
}
