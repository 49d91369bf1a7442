/**
 * createWebhookEndpoint, `POST /v1/webhook-endpoints` (proxy 1.0; experimental): docs/contract.md "History and
 * events" (webhook endpoints through the API).
 */
import { operationNamed, stageName } from '#lib/api.ts';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { callerOwnerKeyId } from '#lib/http/caller.ts';
import { HttpError, unauthorizedMessage } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonBody } from '#lib/http/json-body.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { grantedScopes } from '#lib/http/scope-check.ts';
import { tables } from '#lib/tables.ts';
import { createdEndpointJson, endpointValue, parseNewEndpoint } from '#lib/webhooks/endpoint-json.ts';
import { checkEndpointUrl } from '#lib/webhooks/endpoint-url.ts';
import { endpointEventTypesFor } from '#lib/webhooks/event-access.ts';
import { keyEndpointStore, maxEndpointsPerKey } from '#lib/webhooks/key-endpoints.ts';
import { liveCallerCheck } from '#lib/webhooks/live-caller.ts';
import { urlPolicyFrom } from '#lib/webhooks/url-guard.ts';

const client = createDynamoDbClient();
const store = keyEndpointStore(client, {
  endpoints: requiredEnv(tables.webhookEndpoints.env),
  owners: requiredEnv(tables.webhookEndpointOwners.env),
});
const requireLiveCaller = liveCallerCheck(client, requiredEnv(tables.apiKeys.env));
const policy = urlPolicyFrom(process.env[eventsEnv.urlPolicy]);

/**
 * The Lambda handler: 201 with the new endpoint and its secret; 200 with the key's endpoint for that URL; 403
 * when the key may not read an event type the endpoint would deliver (lib/webhooks/event-access.ts); 401 when
 * the key is revoked or expired, though the authorizer's answer is still cached (lib/webhooks/live-caller.ts).
 */
export const handler = httpFunction(operationNamed('createWebhookEndpoint'))
  .use(jsonBody({ example: '{"url": "https://example.com/hooks"}' }))
  .handler(async (event) => {
    await requireLiveCaller(event);
    const body = parseNewEndpoint(event.body);
    const events = endpointEventTypesFor(body.events, grantedScopes(event.requestContext.authorizer?.scope));
    const { url } = body;
    await checkEndpointUrl(url, policy);
    const result = await store.create(callerOwnerKeyId(event), url, events, new Date());
    // A chain without a live key never comes back (a key joins a chain only by rotating a live one).
    if (result.outcome === 'key_dead') throw new HttpError('unauthorized', unauthorizedMessage);
    if (result.outcome === 'limit_reached') {
      throw new HttpError(
        'limit_reached',
        `this API key already holds ${maxEndpointsPerKey} webhook endpoints: delete one before creating another`,
      );
    }
    const location = { Location: `/${stageName}/webhook-endpoints/${result.endpoint.endpointId}` };
    return result.outcome === 'created'
      ? jsonResponse(201, createdEndpointJson(result.endpoint), location)
      : jsonResponse(200, JSON.stringify(endpointValue(result.endpoint)), location);
  });
