/** The one place where a thrown error becomes an Error body: docs/contract.md "Errors". */
import { STATUS_CODES } from 'node:http';
import type { MiddlewareObj } from '@middy/core';
import { createError } from '@middy/util';
import { isThrottlingError, isTransientError } from '@smithy/core/retry';
import { logger } from '../logger.ts';
import { type ErrorBody, type ErrorCode, errorBody, errorStatus, HttpError } from './errors.ts';

/** True when `error` means DynamoDB could not serve the request: network failure, timeout, throttling, 5xx. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // biome-ignore lint/suspicious/noExplicitAny: the smithy classifiers take the SDK's untyped error shape
  const sdkError = error as any;
  return isThrottlingError(sdkError) || isTransientError(sdkError);
}

/**
 * The contract's code for the 4xx `status` of a stock middleware's error: 415 and 422 are 400
 * `invalid_request` (the contract has no 415 and keeps 422 for `idempotency_key_reused`); a status the contract
 * gives a code is that code (409: `conflict`); any other 4xx is 400 `invalid_request` (docs/contract.md "Errors").
 */
function stockErrorCode(status: number): ErrorCode {
  if (status === 415 || status === 422) return 'invalid_request';
  const codes = Object.keys(errorStatus) as ErrorCode[];
  return codes.find((code) => errorStatus[code] === status) ?? 'invalid_request';
}

/** Longest message of a stock middleware's error shown to the client, in characters. */
const stockMessageLength = 200;

/**
 * The Error body of an error of the http-errors convention (middy's `createError`, `http-errors`: a numeric
 * `statusCode` and `expose`) when it is exposed (`expose: true`) and 4xx, else undefined. The message is the
 * error's own when it is printable ASCII of at most 200 characters, else the status's reason phrase.
 */
function stockErrorBody(error: unknown): ErrorBody | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { statusCode, expose, message } = error as {
    statusCode?: unknown;
    expose?: unknown;
    message?: unknown;
  };
  if (expose !== true || !Number.isInteger(statusCode)) return undefined;
  const status = statusCode as number;
  if (status < 400 || status > 499) return undefined;
  const safe =
    typeof message === 'string' && message.length <= stockMessageLength && /^[\x20-\x7e]+$/.test(message);
  return errorBody(stockErrorCode(status), safe ? message : (STATUS_CODES[status] ?? 'invalid request'));
}

/**
 * The Error body of any thrown value: an {@link HttpError}'s own; an exposed 4xx of the http-errors convention
 * (a stock middy middleware's) as {@link stockErrorBody} maps it; DynamoDB unavailable after the SDK's
 * retries: 503 `service_unavailable`; anything else (a 5xx or unexposed http error too): 500
 * `internal_error`, revealing nothing internal.
 */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof HttpError) return error.body;
  const stock = stockErrorBody(error);
  if (stock) return stock;
  if (isDatabaseUnavailable(error)) {
    return errorBody('service_unavailable', 'the inventory database is unavailable; retry later');
  }
  return errorBody('internal_error', 'internal error');
}

/**
 * Middy middleware: hands http-error-handler (registered before it: `onError` runs in reverse) an exposed
 * error whose message is the Error body (with an HttpError's own headers). Logs status, code and error class only, never message or stack.
 */
export function errorBodyMiddleware(): MiddlewareObj {
  return {
    onError: (request) => {
      const body = toErrorBody(request.error);
      const fields = { status: body.status, code: body.code, errorName: request.error?.name };
      if (body.status >= 500) logger.error('request failed', fields);
      else logger.info('request rejected', fields);
      const headers = request.error instanceof HttpError ? request.error.headers : {};
      // http-error-handler writes the error's `headers` on the response.
      request.error = Object.assign(createError(body.status, JSON.stringify(body), { expose: true }), {
        headers,
      });
    },
  };
}
