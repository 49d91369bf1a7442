/**
 * sendTestWebhook, `POST /v1/webhook-endpoints/{endpointId}/test` (proxy 1.0; experimental): 202, and the
 * endpoint receives a signed `webhook.test` event, listed in its attempts; 404 when the calling key holds no
 * such endpoint, 401 when the key is revoked or expired (lib/webhooks/live-caller.ts): docs/contract.md "History and
 * events".
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { operationNamed } from '#lib/api.ts';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { callerOwnerKeyId } from '#lib/http/caller.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { tables } from '#lib/tables.ts';
import { sendDelivery } from '#lib/webhooks/delivery-queue.ts';
import { parseEndpointId } from '#lib/webhooks/endpoint-json.ts';
import { liveCallerCheck } from '#lib/webhooks/live-caller.ts';
import { requireOwnedEndpoint } from '#lib/webhooks/owned-endpoint.ts';
import { testDelivery } from '#lib/webhooks/test-event.ts';

const client = createDynamoDbClient();
const endpointsTable = requiredEnv(tables.webhookEndpoints.env);
const sqs = new SQSClient({ maxAttempts: 3 });
const queueUrl = requiredEnv(eventsEnv.deliveryQueueUrl);
const requireLiveCaller = liveCallerCheck(client, requiredEnv(tables.apiKeys.env));

/** The Lambda handler: 202 with `{"eventId"}`, the test event's id (its `webhook-id`). */
export const handler = httpFunction(operationNamed('sendTestWebhook')).handler(async (event) => {
  await requireLiveCaller(event);
  const endpointId = parseEndpointId(event.pathParameters?.endpointId);
  await requireOwnedEndpoint(client, endpointsTable, callerOwnerKeyId(event), endpointId);
  const message = testDelivery(endpointId, new Date());
  await sendDelivery(sqs, queueUrl, message);
  return jsonResponse(202, JSON.stringify({ eventId: message.eventId }));
});
