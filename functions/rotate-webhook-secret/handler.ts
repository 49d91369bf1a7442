/**
 * rotateWebhookSecret, `POST /v1/webhook-endpoints/{endpointId}/rotate-secret` (proxy 1.0; experimental): 200
 * with the new `secret`, shown once; for 24 hours every delivery carries the new and the old signature, then the
 * new alone; 404 when the calling key holds no such endpoint, 401 when the key is revoked or expired
 * (lib/webhooks/live-caller.ts): docs/contract.md "History and events".
 */
import { operationNamed } from '#lib/api.ts';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { callerOwnerKeyId } from '#lib/http/caller.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { tables } from '#lib/tables.ts';
import { parseEndpointId } from '#lib/webhooks/endpoint-json.ts';
import { liveCallerCheck } from '#lib/webhooks/live-caller.ts';
import { rotateSecret } from '#lib/webhooks/secret-rotation.ts';

const client = createDynamoDbClient();
const endpointsTable = requiredEnv(tables.webhookEndpoints.env);
const requireLiveCaller = liveCallerCheck(client, requiredEnv(tables.apiKeys.env));

/** The Lambda handler: 200 with `{"id", "secret"}`. */
export const handler = httpFunction(operationNamed('rotateWebhookSecret')).handler(async (event) => {
  const now = new Date();
  await requireLiveCaller(event, now);
  const endpointId = parseEndpointId(event.pathParameters?.endpointId);
  const secret = await rotateSecret(client, endpointsTable, callerOwnerKeyId(event), endpointId, now);
  if (secret === undefined) throw notFound(`this API key holds no webhook endpoint ${endpointId}`);
  return jsonResponse(200, JSON.stringify({ id: endpointId, secret }));
});
