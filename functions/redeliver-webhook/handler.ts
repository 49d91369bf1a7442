/**
 * redeliverWebhook, `POST /v1/webhook-endpoints/{endpointId}/redeliveries` (proxy 1.0; experimental): 202, and the
 * endpoint receives the event `eventId` again, with the same `webhook-id` and body, signed with its current
 * secret(s), listed in its attempts; 404 when the calling key holds no such endpoint, or the endpoint was never
 * sent that event or it is past 30 days (docs/contract.md "History and events").
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { eventById } from '#lib/events/event-feed.ts';
import { callerOwnerKeyId } from '#lib/http/caller.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonBody } from '#lib/http/json-body.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { grantedScopes } from '#lib/http/scope-check.ts';
import { tables } from '#lib/tables.ts';
import { sendDelivery } from '#lib/webhooks/delivery-queue.ts';
import { parseEndpointId } from '#lib/webhooks/endpoint-json.ts';
import { requireOwnedEndpoint } from '#lib/webhooks/owned-endpoint.ts';
import { parseRedelivery, redeliveryExample, redeliveryOf } from '#lib/webhooks/redelivery.ts';

const client = createDynamoDbClient();
const endpointsTable = requiredEnv(tables.webhookEndpoints.env);
const eventsTable = requiredEnv(tables.events.env);
const sqs = new SQSClient({ maxAttempts: 3 });
const queueUrl = requiredEnv(eventsEnv.deliveryQueueUrl);

/** The Lambda handler: 202 with `{"eventId"}`, the redelivered event's id (its `webhook-id`). */
export const handler = httpFunction(operationNamed('redeliverWebhook'))
  .use(jsonBody({ example: redeliveryExample }))
  .handler(async (event) => {
    const endpointId = parseEndpointId(event.pathParameters?.endpointId);
    const eventId = parseRedelivery(event.body);
    // Validation before existence (docs/contract.md "Authentication and authorization": order of checks).
    const endpoint = await requireOwnedEndpoint(client, endpointsTable, callerOwnerKeyId(event), endpointId);
    const found = await eventById(documentClient, eventsTable, eventId);
    const message =
      found &&
      redeliveryOf(endpointId, endpoint, found, grantedScopes(event.requestContext.authorizer?.scope));
    if (!message) {
      throw notFound(`webhook endpoint ${endpointId} was sent no event ${eventId} in the last 30 days`);
    }
    await sendDelivery(sqs, queueUrl, message);
    return jsonResponse(202, JSON.stringify({ eventId }));
  });
