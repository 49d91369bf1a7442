/** The local API engine, API Gateway REST's order over a template (behaviour.md). */
import { randomBytes, randomUUID } from 'node:crypto';
import { type IncomingMessage, METHODS, type ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import FindMyWay from 'find-my-way';
import { bodyPending, bodySlots, unverifiedBodySlots } from '../common/unverified-bodies.ts';
import { LambdaFunctions } from '../lambda/lambda-functions.ts';
import { type LambdaFunction, TooLateToStart } from '../lambda/lambda-runtime.ts';
import { type Prelude, splitPrelude } from '../lambda/response-streaming.ts';
import type { ApiModel, FunctionModel, MethodModel, ThrottleModel } from '../template/api-model.ts';
import { authorizerStep } from './authorizer.ts';
import {
  defaultErrorBody,
  type ErrorBodyRenderer,
  type GatewayErrorKind,
  renderGatewayResponse,
} from './gateway-response-render.ts';
import { renderMock } from './mock-integration.ts';
import { eventHeaders, lastHeaderValue, proxyEvent } from './proxy-event.ts';
import { usagePlan } from './usage-plan.ts';

/** API Gateway's payload limit in bytes (10 MB). */
export const maxBodyBytes = 10 * 1024 * 1024;
/** API Gateway REST's limit on the combined size of the request line and header values, in bytes. */
export const maxHeaderBytes = 10_240;
/** API Gateway REST's integration timeout for a Lambda integration, in milliseconds (29 s). */
export const integrationTimeoutMs = 29_000;

/** The message of the 503 to a request whose function could not end before the shutdown's deadline. */
const shuttingDown = 'the server is shutting down; retry';

/** The running engine. */
export interface Engine {
  /** The `request` listener of an HTTP server. */
  listener(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /**
   * Starts a shutdown's drain that cuts at `deadline` (epoch ms): from now on a function (an integration's or
   * an authorizer's) runs only if its Timeout ends by then; a request whose function could not is answered 503
   * (the composer's error body) without running, by the gateway (an integration) or as AUTHORIZER_FAILURE (an
   * authorizer): README.md "Memory and shutdown".
   */
  endBy(deadline: number): void;
  /** Terminates its functions' execution environments (see {@link LambdaFunctions.close}). */
  close(): Promise<void>;
  /** Retires its functions' execution environments (see {@link LambdaFunction.recycle}). */
  recycle(): void;
}

/**
 * One request's access log variables, named after API Gateway's `$context` variables
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-variables-for-access-logging.html):
 * `resourcePath` is `-` when no method matched, `responseLatency` in milliseconds from the request's arrival to
 * the response's end, `authorizer` the authorizer's context and `principalId` (absent without an accepted one).
 */
export interface AccessLogContext {
  requestId: string;
  httpMethod: string;
  resourcePath: string;
  status: number;
  responseLatency: number;
  authorizer?: Record<string, string | number>;
}

/** Headers API Gateway adds to every response it sends: a request id and an API Gateway id. */
function gatewayHeaders(requestId: string): Record<string, string> {
  return {
    'x-amzn-RequestId': requestId,
    'x-amz-apigw-id': randomBytes(12).toString('base64url').slice(0, 16),
  };
}

/**
 * Reads the whole body of a request allowed to send one; `tooLarge` past {@link maxBodyBytes} (the rest is read
 * and discarded, keeping the connection).
 */
async function readBody(request: IncomingMessage): Promise<Buffer | 'tooLarge'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBodyBytes) chunks.push(chunk);
  }
  return size > maxBodyBytes ? 'tooLarge' : Buffer.concat(chunks);
}

/** The raw path and query of a request target as received (never decoded or normalised). */
function splitTarget(target: string): { path: string; query: string | undefined } {
  const withoutOrigin = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  const question = withoutOrigin.indexOf('?');
  return question < 0
    ? { path: withoutOrigin || '/', query: undefined }
    : { path: withoutOrigin.slice(0, question) || '/', query: withoutOrigin.slice(question + 1) };
}

/** The combined size of the request line and the header values, as API Gateway counts it. */
function headerBytes(request: IncomingMessage): number {
  let size = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
  for (let i = 1; i < request.rawHeaders.length; i += 2)
    size += Buffer.byteLength(request.rawHeaders[i] ?? '');
  return size;
}

/**
 * The throttle of one allowed request: the key's own (`rateLimit` / `burstLimit` in the authorizer's context,
 * as the keys table holds it) or the usage plan's (behaviour.md S10).
 */
function keyThrottle(authorizer: Record<string, string | number>, plan: ThrottleModel): ThrottleModel {
  const rateLimit = Number(authorizer.rateLimit);
  const burstLimit = Number(authorizer.burstLimit);
  return rateLimit > 0 && burstLimit > 0 ? { rateLimit, burstLimit } : plan;
}

/** Checks a Lambda proxy result as API Gateway does; undefined when malformed. */
function proxyResult(payload: string): APIGatewayProxyResult | undefined {
  let result: unknown;
  try {
    result = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return undefined;
  const { statusCode, headers, multiValueHeaders, body, isBase64Encoded, ...rest } = result as Record<
    string,
    unknown
  >;
  const status = Number(statusCode);
  const isMap = (value: unknown) => value === undefined || (value !== null && typeof value === 'object');
  if (Object.keys(rest).length > 0 || !Number.isInteger(status) || status < 100 || status > 599)
    return undefined;
  if (!isMap(headers) || !isMap(multiValueHeaders)) return undefined;
  if (body !== undefined && body !== null && typeof body !== 'string') return undefined;
  return result as APIGatewayProxyResult;
}

/**
 * Splits a response stream into its prelude (status and headers, JSON) and the body bytes read with it, as
 * API Gateway does; the stream stays open (paused) for the rest of the body. Undefined when there is none.
 */
function streamedResponse(body: Readable): Promise<{ prelude: Prelude; rest: Buffer } | undefined> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const finish = (value: Parameters<typeof resolve>[0]) => {
      body.off('data', onData).off('end', onEnd).off('error', onEnd);
      body.pause();
      resolve(value);
    };
    const onEnd = () => finish(undefined);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      try {
        const split = splitPrelude(received);
        if (split) finish(split);
      } catch {
        finish(undefined);
      }
    };
    body.on('data', onData).once('end', onEnd).once('error', onEnd);
  });
}

/**
 * Builds the engine for `model`; `errorBody` writes the 503 of a function that could not start before a
 * shutdown's deadline. Its integrations and authorizers run in `functions`: the template's (startLocalAws
 * shares them with the event path, and closes them itself), else functions of their own built from
 * `model.functions` (the engine alone, in a test).
 */
export function createEngine(
  model: ApiModel,
  errorBody: ErrorBodyRenderer = defaultErrorBody,
  onAccess?: (context: AccessLogContext) => void,
  functions: LambdaFunctions = new LambdaFunctions(
    (logicalId) => model.functions[logicalId] as FunctionModel,
  ),
): Engine {
  const functionFor = (logicalId: string): LambdaFunction => functions.get(logicalId);
  const plan = usagePlan();
  const unauthenticated = bodySlots(unverifiedBodySlots);
  const authorizers = new Map(
    Object.values(model.authorizers).map((authorizer) => [
      authorizer.logicalId,
      authorizerStep(authorizer, functionFor(authorizer.functionId)),
    ]),
  );

  // The path is looked up with every `%` escaped, so the router's own decoding gives back the parameter
  // values exactly as received (API Gateway REST passes path parameters percent-encoded).
  // No limit of its own on a parameter's length (the router's default is 100 characters): API Gateway has none.
  const router = FindMyWay({
    ignoreTrailingSlash: true,
    ignoreDuplicateSlashes: false,
    maxParamLength: Number.MAX_SAFE_INTEGER,
  });
  for (const method of model.methods) {
    const path = `/${model.stage}${method.resourcePath === '/' ? '' : method.resourcePath}`
      .replace(/\{(\w+)\+\}/g, '*')
      .replace(/\{(\w+)\}/g, ':$1');
    const verbs =
      method.httpMethod === 'ANY' ? METHODS.filter((verb) => verb !== 'CONNECT') : [method.httpMethod];
    router.on(verbs as 'GET'[], path || '/', () => {}, method);
  }

  /**
   * Answers the gateway response of `kind`; `headers` replace the template's of the same name (the local usage
   * plan's exact `Retry-After` over the template's static one: behaviour.md S10).
   */
  function send(
    response: ServerResponse,
    requestId: string,
    kind: GatewayErrorKind,
    headers: Record<string, string> = {},
  ): void {
    const request = response.req;
    // A body not yet received is never read for an answer sent without it: the connection closes instead.
    if (bodyPending(request)) response.setHeader('Connection', 'close');
    const rendered = renderGatewayResponse(model.gatewayResponses, kind, {
      requestId,
      // A single-valued `method.request.header.X` of a repeated header: its last value (behaviour.md G3, E5).
      header: (name) => lastHeaderValue(request.rawHeaders, name),
    });
    response
      .writeHead(rendered.statusCode, { ...rendered.headers, ...headers, ...gatewayHeaders(requestId) })
      .end(rendered.body);
  }

  async function integrate(
    response: ServerResponse,
    requestId: string,
    method: MethodModel,
    event: ReturnType<typeof proxyEvent>,
  ): Promise<void> {
    const { integration } = method;
    if (integration.type === 'mock') {
      const mock = renderMock(integration, response.req.rawHeaders);
      response.writeHead(mock.statusCode, { ...mock.headers, ...gatewayHeaders(requestId) }).end(mock.body);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), integrationTimeoutMs);
    });
    const invoked = functionFor(integration.functionId)
      .invoke(event)
      .catch((error: unknown) => {
        if (error instanceof TooLateToStart) return 'tooLate' as const;
        throw error;
      });
    const outcome = await Promise.race([invoked, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') return send(response, requestId, 'INTEGRATION_TIMEOUT');
    if (outcome === 'tooLate') {
      response
        .writeHead(503, { 'Content-Type': 'application/json', ...gatewayHeaders(requestId) })
        .end(JSON.stringify(errorBody(503, shuttingDown)));
      return;
    }
    if (outcome.type === 'error') {
      if (outcome.errorType === 'RequestTooLarge') return send(response, requestId, 'REQUEST_TOO_LARGE');
      return send(response, requestId, 'LAMBDA_ERROR');
    }
    if (outcome.type === 'stream') {
      const streamed = integration.streaming ? await streamedResponse(outcome.body) : undefined;
      if (!streamed) {
        outcome.body.destroy();
        return send(response, requestId, 'LAMBDA_ERROR');
      }
      response.writeHead(streamed.prelude.statusCode ?? 200, {
        ...streamed.prelude.headers,
        ...gatewayHeaders(requestId),
      });
      if (streamed.rest.length > 0) response.write(streamed.rest);
      outcome.body.on('error', () => response.destroy());
      outcome.body.pipe(response);
      return;
    }
    const result = proxyResult(outcome.payload);
    if (!result) return send(response, requestId, 'LAMBDA_ERROR');
    for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
    for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
      response.setHeader(name, values.map(String));
    }
    for (const [name, value] of Object.entries(gatewayHeaders(requestId))) response.setHeader(name, value);
    response.statusCode = Number(result.statusCode);
    const body = result.body ?? '';
    response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
  }

  /** What {@link listener} learns of a request for its access log line. */
  interface Seen {
    requestId: string;
    resourcePath?: string;
    authorizer?: Record<string, string | number>;
  }

  async function listener(request: IncomingMessage, response: ServerResponse, seen: Seen): Promise<void> {
    const { requestId } = seen;
    const { path, query } = splitTarget(request.url ?? '/');
    const match = router.find(request.method as 'GET', path.replace(/%/g, '%25'));
    const method = match?.store as MethodModel | undefined;
    if (!match || !method) return send(response, requestId, 'MISSING_AUTHENTICATION_TOKEN');
    seen.resourcePath = method.resourcePath;
    if (headerBytes(request) > maxHeaderBytes || Number(request.headers['content-length']) > maxBodyBytes) {
      return send(response, requestId, 'REQUEST_TOO_LARGE');
    }
    const stagePath = path.slice(model.stage.length + 1) || '/';
    const headers = eventHeaders(request.rawHeaders);
    let authorizer: Record<string, string | number> | undefined;
    if (method.authorizerId) {
      const methodArn = `arn:aws:execute-api:us-east-1:000000000000:local/${model.stage}/${request.method}${stagePath}`;
      const outcome = await (authorizers.get(method.authorizerId) as ReturnType<typeof authorizerStep>)(
        request.rawHeaders,
        methodArn,
      );
      if ('refusal' in outcome) return send(response, requestId, outcome.refusal);
      authorizer = outcome.authorizer;
      seen.authorizer = authorizer;
      if (method.apiKeyRequired && model.keyThrottle) {
        if (!outcome.usageIdentifier) return send(response, requestId, 'INVALID_API_KEY');
        if (!plan.take(outcome.usageIdentifier, keyThrottle(outcome.authorizer, model.keyThrottle))) {
          const retryAfter = String(plan.retryAfterSeconds(outcome.usageIdentifier));
          return send(response, requestId, 'THROTTLED', { 'Retry-After': retryAfter });
        }
      }
    }
    // The body is read once the request is authorized (an authorizer decides on headers alone), a method
    // without an authorizer's within the bound on unauthenticated bodies; a MOCK integration reads none.
    const body =
      method.integration.type === 'mock'
        ? Buffer.alloc(0)
        : method.authorizerId
          ? await readBody(request)
          : await unauthenticated.acquire().then((release) => readBody(request).finally(release));
    if (body === 'tooLarge') return send(response, requestId, 'REQUEST_TOO_LARGE');
    const params = match.params as Record<string, string>;
    const event = proxyEvent({
      request,
      requestId,
      headers,
      stage: model.stage,
      path: stagePath,
      query,
      resource: method.resourcePath,
      pathParameters:
        Object.keys(params).length > 0
          ? params['*'] !== undefined
            ? renameProxy(method, params)
            : params
          : null,
      body,
      authorizer,
    });
    await integrate(response, requestId, method, event);
  }

  return {
    async listener(request, response) {
      const seen: Seen = { requestId: randomUUID() };
      const arrived = performance.now();
      if (onAccess) {
        response.once('close', () =>
          onAccess({
            requestId: seen.requestId,
            httpMethod: request.method ?? '-',
            resourcePath: seen.resourcePath ?? '-',
            status: response.statusCode,
            responseLatency: Math.round(performance.now() - arrived),
            ...(seen.authorizer ? { authorizer: seen.authorizer } : {}),
          }),
        );
      }
      try {
        await listener(request, response, seen);
      } catch (error) {
        process.stderr.write(`local API: ${(error as Error).message}\n`);
        if (!response.headersSent) response.writeHead(500).end();
        else response.destroy();
      }
    },
    recycle: () => functions.recycle(),
    endBy: (deadline) => functions.endBy(deadline),
    close: () => functions.close(),
  };
}

/** The path parameters of a greedy `{name+}` route, named as the template names it. */
function renameProxy(method: MethodModel, params: Record<string, string>): Record<string, string> {
  const greedy = /\{(\w+)\+\}/.exec(method.resourcePath)?.[1] ?? 'proxy';
  const { '*': rest, ...named } = params;
  return { ...named, [greedy]: rest ?? '' };
}
