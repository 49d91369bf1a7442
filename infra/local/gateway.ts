/**
 * The local API Gateway stand-in: an HTTP request listener that does what the deployed REST API does, in
 * the same order (docs/contract.md "Authentication", order of checks), calling the very handler modules the
 * Lambda functions run:
 * 1. route by the operation table (lib/api.ts); no route or method: MISSING_AUTHENTICATION_TOKEN (404);
 * 2. body over 10 MB: REQUEST_TOO_LARGE (413);
 * 3. the TOKEN authorizer (see authorizer-cache.ts): UNAUTHORIZED or ACCESS_DENIED (401), or
 *    AUTHORIZER_CONFIGURATION_ERROR (503);
 * 4. the function, with a REST proxy event (payload 1.0) whose path parameters stay percent-encoded, as API
 *    Gateway passes them; a function that throws: INTEGRATION_FAILURE. A streaming function
 *    (response-streaming.ts) is answered as it writes, in chunks; one that fails after its status went out has
 *    its connection cut, as API Gateway does, so the client sees an incomplete response.
 * Every refusal is written from infra/gateway-responses.ts, the definitions the stack deploys.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import FindMyWay from 'find-my-way';
import { authorizer, type Operation, operations, stageName } from '#lib/api.ts';
import { jsonHeaders } from '#lib/http/responses.ts';
import { type GatewayResponseType, gatewayResponses } from '../gateway-responses.ts';
import { type AuthorizerHandler, authorizerStep } from './authorizer-cache.ts';
import { loadHandler } from './function-modules.ts';
import { lambdaContext } from './lambda-context.ts';
import { proxyEvent } from './proxy-event.ts';
import {
  installStreamingRuntime,
  isStreamingHandler,
  type ResponseStream,
  responseSink,
} from './response-streaming.ts';

/** API Gateway's payload limit in bytes (10 MB; docs/contract.md 413 `payload_too_large`). */
export const maxBodyBytes = 10 * 1024 * 1024;

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type StreamingHandler = (
  event: APIGatewayProxyEvent,
  stream: ResponseStream,
  context: Context,
) => Promise<void>;

interface Route {
  operation: Operation;
  handler: ProxyHandler;
}

function sendGatewayResponse(response: ServerResponse, type: GatewayResponseType): void {
  const body = gatewayResponses[type];
  response.writeHead(body.status, jsonHeaders).end(JSON.stringify(body));
}

function sendProxyResult(response: ServerResponse, result: APIGatewayProxyResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    response.setHeader(name, values.map(String));
  }
  response.statusCode = result.statusCode;
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/** Runs a streaming handler, writing its status, headers and body to `response` as they come. */
async function sendStreamed(
  response: ServerResponse,
  handler: StreamingHandler,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<void> {
  const sink = responseSink(response, ({ statusCode, headers }) => response.writeHead(statusCode, headers));
  try {
    await handler(event, sink, context);
  } catch {
    if (response.headersSent) response.destroy();
    else sendGatewayResponse(response, 'INTEGRATION_FAILURE');
  }
}

/** Reads the whole body; `tooLarge` when it exceeds {@link maxBodyBytes} (the rest is read and discarded). */
async function readBody(request: IncomingMessage): Promise<{ body: string | null } | 'tooLarge'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBodyBytes) chunks.push(chunk);
  }
  if (size > maxBodyBytes) return 'tooLarge';
  return { body: size === 0 ? null : Buffer.concat(chunks).toString('utf8') };
}

/**
 * Builds the stand-in. Import it only after the functions' environment (table names, DynamoDB endpoint) is
 * set: the handler modules read it once, at import, as in a Lambda container.
 */
export async function createGateway(): Promise<RequestListener> {
  installStreamingRuntime();
  // No limit of its own on a parameter's length (the router's default is 100 characters): API Gateway has none.
  const router = FindMyWay({
    ignoreTrailingSlash: false,
    ignoreDuplicateSlashes: false,
    maxParamLength: Number.MAX_SAFE_INTEGER,
  });
  for (const operation of operations) {
    const route: Route = { operation, handler: await loadHandler<ProxyHandler>(operation.entry) };
    const path = `/${stageName}${operation.path.replace(/\{(\w+)\}/g, ':$1')}`;
    router.on(operation.method, path, () => {}, route);
  }
  const authorize = authorizerStep(await loadHandler<AuthorizerHandler>(authorizer.entry));

  return async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    // `%` escaped as `%25`, so the router's decoding gives back each path parameter as sent (percent-encoded).
    const match = router.find(request.method as 'GET', url.pathname.replaceAll('%', '%25'));
    const route = match?.store as Route | undefined;
    if (!match || !route) {
      request.resume();
      return sendGatewayResponse(response, 'MISSING_AUTHENTICATION_TOKEN');
    }
    const read = await readBody(request);
    if (read === 'tooLarge') return sendGatewayResponse(response, 'REQUEST_TOO_LARGE');
    const methodArn = `arn:aws:execute-api:local:000000000000:local/${stageName}/${route.operation.method}${url.pathname.slice(stageName.length + 1)}`;
    const outcome = await authorize(request.headers.authorization, methodArn);
    if ('refusal' in outcome) return sendGatewayResponse(response, outcome.refusal);
    const params = match.params as Record<string, string>;
    const event = proxyEvent({
      request,
      url,
      resource: route.operation.path,
      pathParameters: Object.keys(params).length > 0 ? params : null,
      body: read.body,
      authorizer: outcome.authorizer,
    });
    const context = lambdaContext(route.operation.name);
    if (isStreamingHandler(route.handler)) {
      return sendStreamed(response, route.handler as unknown as StreamingHandler, event, context);
    }
    try {
      sendProxyResult(response, await route.handler(event, context));
    } catch {
      sendGatewayResponse(response, 'INTEGRATION_FAILURE');
    }
  };
}
