/**
 * deleteWebhookEndpoint, `DELETE /v1/webhook-endpoints/{endpointId}` (proxy 1.0; experimental): 204, or 404
 * when the calling key holds no such endpoint (docs/contract.md "History and events").
 */
import { operationNamed } from '#lib/api.ts';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { callerOwnerKeyId } from '#lib/http/caller.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { tables } from '#lib/tables.ts';
import { parseEndpointId } from '#lib/webhooks/endpoint-json.ts';
import { keyEndpointStore } from '#lib/webhooks/key-endpoints.ts';

const store = keyEndpointStore(createDynamoDbClient(), {
  endpoints: requiredEnv(tables.webhookEndpoints.env),
  owners: requiredEnv(tables.webhookEndpointOwners.env),
});

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('deleteWebhookEndpoint')).handler(async (event) => {
  const endpointId = parseEndpointId(event.pathParameters?.endpointId);
  const removed = await store.remove(callerOwnerKeyId(event), endpointId);
  if (!removed) throw notFound(`this API key holds no webhook endpoint ${endpointId}`);
  return { statusCode: 204, headers: {}, body: '' };
});
