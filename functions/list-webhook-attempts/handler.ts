/**
 * listWebhookAttempts, `GET /v1/webhook-endpoints/{endpointId}/attempts` (proxy 1.0; experimental): the
 * endpoint's delivery attempts of the last 30 days, newest first, in pages linked by `Link` rel="next"; 404 when
 * the calling key holds no such endpoint (docs/contract.md "History and events").
 */
import { operationNamed, stageName } from '#lib/api.ts';
import { createDynamoDbClient } from '#lib/clients/dynamodb-client.ts';
import { requiredEnv } from '#lib/env.ts';
import { callerOwnerKeyId } from '#lib/http/caller.ts';
import { invalidRequest } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { parseLimit } from '#lib/http/page-limit.ts';
import { ownValue } from '#lib/http/request-parameters.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { tables } from '#lib/tables.ts';
import { attemptCursor, attemptIdOfCursor, attemptPage } from '#lib/webhooks/attempt-log.ts';
import { parseEndpointId } from '#lib/webhooks/endpoint-json.ts';
import { requireOwnedEndpoint } from '#lib/webhooks/owned-endpoint.ts';

const client = createDynamoDbClient();
const endpointsTable = requiredEnv(tables.webhookEndpoints.env);
const attemptsTable = requiredEnv(tables.webhookAttempts.env);

/** The Lambda handler: 200 with `{"items": [WebhookAttempt...]}` and, when more follow, `Link` rel="next". */
export const handler = httpFunction(operationNamed('listWebhookAttempts')).handler(async (event) => {
  const endpointId = parseEndpointId(event.pathParameters?.endpointId);
  const query = event.queryStringParameters;
  const limit = parseLimit(ownValue(query, 'limit'));
  const cursor = ownValue(query, 'cursor');
  const below = cursor === undefined ? undefined : attemptIdOfCursor(cursor);
  if (cursor !== undefined && below === undefined) {
    throw invalidRequest('cursor is not valid: use the one of the Link header of the previous page');
  }
  // Validation before existence (docs/contract.md "Authentication and authorization": order of checks).
  await requireOwnedEndpoint(client, endpointsTable, callerOwnerKeyId(event), endpointId);
  const page = await attemptPage(client, attemptsTable, endpointId, {
    limit,
    ...(below === undefined ? {} : { below }),
    now: new Date(),
  });
  const link: Record<string, string> =
    page.next === undefined
      ? {}
      : {
          Link: `</${stageName}/webhook-endpoints/${endpointId}/attempts?limit=${limit}&cursor=${attemptCursor(page.next)}>; rel="next"`,
        };
  return jsonResponse(200, JSON.stringify({ items: page.items }), link);
});
