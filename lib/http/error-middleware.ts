/**
 * The one place where a thrown error becomes an Error body (docs/architecture.md "Data flow"; docs/contract.md "Errors").
 *
 * Register it after `@middy/http-error-handler` (middy runs `onError` in reverse order): this middleware
 * classifies `request.error` into `{code, message, status}` and hands http-error-handler an exposed error
 * whose message is that JSON body, which it writes with `Content-Type: application/json`.
 *
 * Classification:
 * - {@link HttpError}: its own body (400 / 404 thrown by lib code);
 * - DynamoDB unreachable, timing out or throttling after the SDK's retries: 503 `service_unavailable`;
 * - anything else: 500 `internal_error` with a message that reveals nothing internal.
 * Log lines carry status, code and the error's class name only: never a message that could hold a table name,
 * never a stack trace.
 */
import type { MiddlewareObj } from '@middy/core';
import { createError } from '@middy/util';
import { isThrottlingError, isTransientError } from '@smithy/core/retry';
import { logger } from '../logger.ts';
import { type ErrorBody, errorBody, HttpError } from './errors.ts';

/** True when `error` means DynamoDB could not serve the request: network failure, timeout, throttling, 5xx. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // biome-ignore lint/suspicious/noExplicitAny: the smithy classifiers take the SDK's untyped error shape
  const sdkError = error as any;
  return isThrottlingError(sdkError) || isTransientError(sdkError);
}

/** Maps any thrown value to the Error body the client receives (see the module docstring). */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof HttpError) return error.body;
  if (isDatabaseUnavailable(error)) {
    return errorBody('service_unavailable', 'the inventory database is unavailable; retry later');
  }
  return errorBody('internal_error', 'internal error');
}

/** Middy middleware: see the module docstring. */
export function errorBodyMiddleware(): MiddlewareObj {
  return {
    onError: (request) => {
      const body = toErrorBody(request.error);
      const fields = { status: body.status, code: body.code, errorName: request.error?.name };
      if (body.status >= 500) logger.error('request failed', fields);
      else logger.info('request rejected', fields);
      request.error = createError(body.status, JSON.stringify(body), { expose: true });
    },
  };
}
