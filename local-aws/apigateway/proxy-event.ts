/** The proxy event (payload 1.0) API Gateway builds from a request: behaviour.md E1-E4. */
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * `headers` (last value wins) and `multiValueHeaders` (every value), names in the client's own case. Both maps
 * have no prototype: a name such as `__proto__` or `constructor` is a member like any other (README.md
 * "Memory and shutdown"), as in the JSON event Lambda hands a function.
 */
export interface EventHeaders {
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
}

/**
 * A name's last value and all its values, in maps without a prototype, from `[name, value]` pairs in order;
 * linear in their number.
 */
function valueMaps(pairs: Iterable<[string, string]>): [Record<string, string>, Record<string, string[]>] {
  const last: Record<string, string> = Object.create(null);
  const all: Record<string, string[]> = Object.create(null);
  for (const [name, value] of pairs) {
    last[name] = value;
    const values = all[name];
    if (values) values.push(value);
    else all[name] = [value];
  }
  return [last, all];
}

/** The headers of a request's raw header list (`IncomingMessage.rawHeaders`). */
export function eventHeaders(rawHeaders: readonly string[]): EventHeaders {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    pairs.push([rawHeaders[i] as string, rawHeaders[i + 1] as string]);
  }
  const [headers, multiValueHeaders] = valueMaps(pairs);
  return { headers, multiValueHeaders };
}

/**
 * The value of header `name` (any case) as API Gateway passes a single-valued header: its last line's value,
 * the one the event's `headers` holds (E4); undefined when absent. The TOKEN authorizer's identity source
 * reads it (E5), so the authorizer and the function see the same credentials.
 */
export function lastHeaderValue(rawHeaders: readonly string[], name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (let i = rawHeaders.length - 2; i >= 0; i -= 2) {
    if (rawHeaders[i]?.toLowerCase() === wanted) return rawHeaders[i + 1];
  }
  return undefined;
}

/** The query maps of the event (E1-E3), without a prototype; null for both when there is no query. */
function queryParameters(query: string | undefined) {
  if (!query) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const [single, multi] = valueMaps(new URLSearchParams(query));
  return { queryStringParameters: single, multiValueQueryStringParameters: multi };
}

/** What the engine knows of a request once routed and authorized. */
export interface RoutedRequest {
  request: IncomingMessage;
  requestId: string;
  headers: EventHeaders;
  stage: string;
  /** The path without the stage, as received. */
  path: string;
  /** The raw query string (after `?`), if any. */
  query: string | undefined;
  /** The method's resource path, e.g. `/items/{itemId}`. */
  resource: string;
  /** Path parameters as received (percent-encoded), or null when the resource has none. */
  pathParameters: Record<string, string> | null;
  body: Buffer;
  /** The authorizer's principal and context, when the method has an authorizer. */
  authorizer: Record<string, string | number> | undefined;
}

/** The proxy event for a routed request. */
export function proxyEvent(routed: RoutedRequest): APIGatewayProxyEvent {
  const { request, stage, path, resource } = routed;
  const httpMethod = request.method ?? 'GET';
  const userAgent = Object.entries(routed.headers.headers).find(
    ([name]) => name.toLowerCase() === 'user-agent',
  );
  return {
    resource,
    path,
    httpMethod,
    ...routed.headers,
    ...queryParameters(routed.query),
    pathParameters: routed.pathParameters,
    stageVariables: null,
    body: routed.body.length === 0 ? null : routed.body.toString('utf8'),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      resourceId: 'local',
      resourcePath: resource,
      httpMethod,
      path: `/${stage}${path}`,
      stage,
      protocol: `HTTP/${request.httpVersion}`,
      requestId: routed.requestId,
      requestTimeEpoch: Date.now(),
      ...(routed.authorizer ? { authorizer: routed.authorizer } : {}),
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: userAgent?.[1] ?? null,
      },
    },
  } as APIGatewayProxyEvent;
}
