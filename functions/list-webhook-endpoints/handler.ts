/**
 * listWebhookEndpoints, `GET /v1/webhook-endpoints` (proxy 1.0; experimental): the calling key's endpoints,
 * never their secrets (docs/contract.md "History and events").
 */
import { operationNamed } from '#lib/api.ts';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { callerOwnerKeyId } from '#lib/http/caller.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { tables } from '#lib/tables.ts';
import { endpointValue } from '#lib/webhooks/endpoint-json.ts';
import { keyEndpointStore } from '#lib/webhooks/key-endpoints.ts';

const store = keyEndpointStore(createDynamoDbClient(), {
  endpoints: requiredEnv(tables.webhookEndpoints.env),
  owners: requiredEnv(tables.webhookEndpointOwners.env),
});

/** The Lambda handler: 200 with `{"items": [WebhookEndpoint...]}`, oldest first; at most 20, so one page. */
export const handler = httpFunction(operationNamed('listWebhookEndpoints')).handler(async (event) => {
  const endpoints = await store.list(callerOwnerKeyId(event));
  return jsonResponse(200, JSON.stringify({ items: endpoints.map(endpointValue) }));
});
