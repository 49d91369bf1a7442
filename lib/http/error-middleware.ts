/** The one place where a thrown error becomes an Error body: docs/contract.md "Errors". */
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

/**
 * The Error body of any thrown value: an {@link HttpError}'s own; DynamoDB unavailable after the SDK's
 * retries: 503 `service_unavailable`; anything else: 500 `internal_error`, revealing nothing internal.
 */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof HttpError) return error.body;
  if (isDatabaseUnavailable(error)) {
    return errorBody('service_unavailable', 'the inventory database is unavailable; retry later');
  }
  return errorBody('internal_error', 'internal error');
}

/**
 * Middy middleware: hands http-error-handler (registered before it: `onError` runs in reverse) an exposed
 * error whose message is the Error body. Logs status, code and error class only, never message or stack.
 */
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
