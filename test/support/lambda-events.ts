/** API Gateway events from AWS's documentation (local-aws/behaviour.md). */
import { randomUUID } from 'node:crypto';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { collectStreamed, type ResponseStream, type StreamedResult } from './lambda-invoke.ts';

export type { StreamedResult };

/** The `handler` export of an HTTP function module (list-inventory, update-inventory): a REST proxy handler. */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** The `handler` export of a function in Lambda's response streaming mode (functions/list-inventory). */
export type StreamingHandler = (
  event: APIGatewayProxyEvent,
  stream: ResponseStream,
  context: Context,
) => Promise<void>;

/** Invokes a streaming handler and collects what a client receives (see `collectStreamed`). */
export function invokeStreaming(
  handler: StreamingHandler,
  event: APIGatewayProxyEvent,
  context: Context,
  onHead?: () => void,
): Promise<StreamedResult> {
  return collectStreamed((stream) => handler(event, stream, context), onHead);
}

/** The `handler` export of functions/authorizer: a TOKEN authorizer. */
export type AuthorizerHandler = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

/** What varies between REST proxy requests in the handler tests. */
export interface ProxyRequest {
  method: 'GET' | 'PATCH' | 'POST' | 'DELETE';
  /** The resource path as configured in API Gateway, e.g. `/inventory/{petId}`. */
  resource: string;
  /** The request path under the stage, e.g. `/inventory/42`. */
  path: string;
  pathParameters?: Record<string, string> | null;
  /** Header names exactly as the client sent them. */
  headers?: Record<string, string>;
  body?: string | null;
  isBase64Encoded?: boolean;
  /** Query parameters as API Gateway decodes them: each name with its values in order. */
  query?: Record<string, string[]>;
}

/**
 * A REST API Lambda proxy event, payload format 1.0, as API Gateway sends it after the TOKEN authorizer
 * allowed the request (principal `test-client`).
 */
export function restProxyEvent(request: ProxyRequest): APIGatewayProxyEvent {
  const headers = request.headers ?? {};
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    // API Gateway puts the last value of a repeated name in queryStringParameters.
    queryStringParameters: request.query
      ? Object.fromEntries(Object.entries(request.query).map(([name, values]) => [name, values.at(-1) ?? '']))
      : null,
    multiValueQueryStringParameters: request.query ?? null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: request.body ?? null,
    isBase64Encoded: request.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdef1234',
      authorizer: {
        principalId: 'test-client',
        keyName: 'test-client',
        keyId: '0123456789ab',
        firstKeyId: '0123456789ab',
        scope: 'inventory:read inventory:write orders:read orders:write webhooks:manage',
        integrationLatency: 12,
      },
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '203.0.113.7',
        user: null,
        userAgent: 'handler-test',
        userArn: null,
      },
      path: `/v1${request.path}`,
      stage: 'v1',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'abc123',
      resourcePath: request.resource,
    },
  };
}

/** A TOKEN authorizer event: the `Authorization` header value (when sent) and the called method's ARN. */
export function tokenAuthorizerEvent(
  authorizationToken: string | undefined,
  methodArn: string,
): APIGatewayTokenAuthorizerEvent {
  return {
    type: 'TOKEN',
    methodArn,
    ...(authorizationToken === undefined ? {} : { authorizationToken }),
  } as APIGatewayTokenAuthorizerEvent;
}
