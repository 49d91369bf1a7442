/**
 * API Gateway REST API proxy events (payload format 1.0) built from a local HTTP request, as API Gateway
 * would build them for a Lambda proxy integration.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { stageName } from '#lib/api.ts';

/** `headers` (last value wins) and `multiValueHeaders` (every value), names in the client's own case. */
export function eventHeaders(request: IncomingMessage) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
}

function queryParameters(url: URL) {
  if (url.search === '') return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return { queryStringParameters: single, multiValueQueryStringParameters: multi };
}

/** What the stand-in knows of a request once routed and authorized. */
export interface RoutedRequest {
  request: IncomingMessage;
  url: URL;
  /** The operation's resource path, e.g. `/inventory/{petId}`. */
  resource: string;
  /** Path parameters as sent (percent-encoded), or null when the resource has none. */
  pathParameters: Record<string, string> | null;
  /** The body as received (UTF-8), or null when there was none. */
  body: string | null;
  /** The authorizer's principal and context. */
  authorizer: Record<string, string>;
}

/** The proxy event for a routed request. `path` is the path without the stage, as API Gateway sends it. */
export function proxyEvent({
  request,
  url,
  resource,
  pathParameters,
  body,
  authorizer,
}: RoutedRequest): APIGatewayProxyEvent {
  const path = url.pathname.slice(`/${stageName}`.length);
  const httpMethod = request.method ?? 'GET';
  return {
    resource,
    path,
    httpMethod,
    ...eventHeaders(request),
    ...queryParameters(url),
    pathParameters,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      resourceId: 'local',
      resourcePath: resource,
      httpMethod,
      path: url.pathname,
      stage: stageName,
      protocol: `HTTP/${request.httpVersion}`,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      authorizer,
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
      },
    },
  } as APIGatewayProxyEvent;
}
