/**
 * The events the bench invokes the functions with, shaped as API Gateway sends them: REST proxy events
 * (payload 1.0) for the operations, a TOKEN event for the authorizer.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { scopes, stageName } from '#lib/api.ts';

/** `methodArn` prefix of the bench's imaginary API. */
const apiArn = 'arn:aws:execute-api:us-east-1:000000000000:benchapi';

/** A REST proxy event for `method resource`, with `path` the concrete path (no stage) and a JSON body. */
export function proxyEvent(options: {
  method: string;
  resource: string;
  path: string;
  pathParameters?: Record<string, string>;
  body?: string;
}): APIGatewayProxyEvent {
  const headers: Record<string, string> = {
    Authorization: 'Bearer (checked by the authorizer)',
    ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
  };
  return {
    resource: options.resource,
    path: options.path,
    httpMethod: options.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: options.pathParameters ?? null,
    stageVariables: null,
    body: options.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'benchapi',
      resourceId: 'bench',
      resourcePath: options.resource,
      httpMethod: options.method,
      path: `/${stageName}${options.path}`,
      stage: stageName,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      // As the authorizer passes a key holding every scope (functions/authorizer/handler.ts).
      authorizer: { principalId: 'bench', keyName: 'bench', keyId: '0123456789ab', scope: scopes.join(' ') },
      identity: { sourceIp: '127.0.0.1', userAgent: 'bench' },
    },
  } as unknown as APIGatewayProxyEvent;
}

/** `GET /v1/inventory`. */
export function listEvent(): APIGatewayProxyEvent {
  return proxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory' });
}

/** `PATCH /v1/inventory/{petId}` with body `{"quantity": quantity}`. */
export function updateEvent(petId: string, quantity: number): APIGatewayProxyEvent {
  return proxyEvent({
    method: 'PATCH',
    resource: '/inventory/{petId}',
    path: `/inventory/${petId}`,
    pathParameters: { petId },
    body: JSON.stringify({ quantity }),
  });
}

/** The TOKEN authorizer event for `Authorization: Bearer <apiKey>` on `GET /inventory`. */
export function tokenEvent(apiKey: string): APIGatewayTokenAuthorizerEvent {
  return {
    type: 'TOKEN',
    authorizationToken: `Bearer ${apiKey}`,
    methodArn: `${apiArn}/${stageName}/GET/inventory`,
  };
}
