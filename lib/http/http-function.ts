/** The middy chain every HTTP function starts from (docs/architecture.md "Data flow of one request"). */

import type { Readable } from 'node:stream';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddyfiedHandler } from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import httpErrorHandler from '@middy/http-error-handler';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Operation } from '../api.ts';
import { logger } from '../logger.ts';
import { middyOptions } from '../middy-options.ts';
import { completionLog } from './completion-log.ts';
import { corsMiddleware, corsOrigins } from './cors.ts';
import { invocationDeadline } from './deadline.ts';
import { errorBodyMiddleware } from './error-middleware.ts';
import { declaredQueryParameters, decodePathParameters } from './request-parameters.ts';
import { scopeCheck } from './scope-check.ts';

/**
 * Adds `headers` to every response, the Error responses included: registered before http-error-handler, so
 * that on error (middlewares run in reverse) it runs after the Error response is written.
 */
function responseHeaders(headers: Readonly<Record<string, string>>) {
  const add = ({ response }: { response: APIGatewayProxyResult | undefined }) => {
    if (response) response.headers = { ...response.headers, ...headers };
  };
  return { after: add, onError: add };
}

/** A proxy result whose body may also be a stream (a function in Lambda's response streaming mode). */
export type StreamingProxyResult = Omit<APIGatewayProxyResult, 'body'> & { body: string | Readable };

/**
 * The middlewares of every HTTP function, in order, on `chain`. middy runs `after` / `onError` in reverse, so
 * CORS and `headers` (registered before http-error-handler) reach the Error responses too, and
 * http-error-handler writes the body `errorBodyMiddleware` prepared. Scope before validation: 403 before 400.
 */
function withHttpMiddlewares<R extends { statusCode: number }>(
  chain: MiddyfiedHandler<APIGatewayProxyEvent, R>,
  operation: Operation,
  headers: Readonly<Record<string, string>> = {},
) {
  const cors = corsMiddleware(corsOrigins());
  return (
    chain
      // First, so every line has the request id. `logEvent: false` whatever POWERTOOLS_LOGGER_LOG_EVENT says:
      // the event carries the bearer key. No `resetKeys`: nothing is ever appended to the logger (fields go
      // with each call) and the reset costs time on every invocation: add it with `logger.appendKeys`.
      .use(injectLambdaContext(logger, { logEvent: false }))
      // Every DynamoDB call of the invocation ends in time for a 503 (lib/http/deadline.ts).
      .use(invocationDeadline())
      .use(cors ? [cors] : [])
      .use(responseHeaders(headers))
      .use(httpErrorHandler({ logger: false }))
      .use(errorBodyMiddleware())
      .use(completionLog(operation))
      .use(scopeCheck(operation))
      .use(declaredQueryParameters(operation))
      .use(decodePathParameters())
  );
}

/**
 * A fresh middy chain for `operation`'s API Gateway REST (payload 1.0) proxy handler; add middlewares, then
 * `.handler()`. `headers` go on every response the function writes (e.g. getPetById's Deprecation and Sunset).
 */
export function httpFunction(
  operation: Operation,
  options: { headers?: Readonly<Record<string, string>> } = {},
) {
  return withHttpMiddlewares(
    middy<APIGatewayProxyEvent, APIGatewayProxyResult>(middyOptions),
    operation,
    options.headers,
  );
}

/**
 * {@link httpFunction} in Lambda's response streaming mode (middy's `StreamifyResponse` execution mode, for an
 * integration with `responseTransferMode: STREAM`): status and headers are sent when the chain returns, then
 * the body, a string or a stream, as it is produced. Module init needs the runtime's `awslambda` global.
 */
export function streamingHttpFunction(operation: Operation) {
  const chain = middy<APIGatewayProxyEvent, StreamingProxyResult>({
    ...middyOptions,
    executionMode: executionModeStreamifyResponse,
  });
  return withHttpMiddlewares(chain, operation);
}
