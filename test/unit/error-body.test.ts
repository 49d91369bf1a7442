/**
 * The Error body of any thrown value (lib/http/error-middleware.ts `toErrorBody`, docs/contract.md "Errors"), the
 * scopes a key's context grants (lib/http/scope-check.ts) and the margin kept before a function's timeout
 * (lib/http/deadline.ts).
 */
import { createError } from '@middy/util';
import { describe, expect, test } from 'vitest';
import { marginMs } from '#lib/http/deadline.ts';
import { isDatabaseUnavailable, toErrorBody } from '#lib/http/error-middleware.ts';
import { HttpError } from '#lib/http/errors.ts';
import { errorResponse, jsonResponse } from '#lib/http/responses.ts';
import { grantedScopes } from '#lib/http/scope-check.ts';

/** An SDK error as DynamoDB's client throws it, of `name` and HTTP `status`. */
function sdkError(name: string, status: number): Error {
  return Object.assign(new Error('internal detail pet-store-inventory'), {
    name,
    $metadata: { httpStatusCode: status },
    $fault: status >= 500 ? 'server' : 'client',
  });
}

describe('toErrorBody', () => {
  test("an HttpError's own body", () => {
    expect(toErrorBody(new HttpError('gone', 'retired'))).toStrictEqual({
      code: 'gone',
      message: 'retired',
      status: 410,
    });
  });

  test.each([
    [400, 'bad', { code: 'invalid_request', message: 'bad', status: 400 }],
    [404, 'no route', { code: 'not_found', message: 'no route', status: 404 }],
    [409, 'clash', { code: 'conflict', message: 'clash', status: 409 }],
    [413, 'big', { code: 'payload_too_large', message: 'big', status: 413 }],
    [
      415,
      'Unsupported Media Type',
      { code: 'invalid_request', message: 'Unsupported Media Type', status: 400 },
    ],
    [422, 'Unprocessable', { code: 'invalid_request', message: 'Unprocessable', status: 400 }],
    [418, 'teapot', { code: 'invalid_request', message: 'teapot', status: 400 }],
    [499, 'x', { code: 'invalid_request', message: 'x', status: 400 }],
    [400, 'x'.repeat(200), { code: 'invalid_request', message: 'x'.repeat(200), status: 400 }],
    [400, 'x'.repeat(201), { code: 'invalid_request', message: 'Bad Request', status: 400 }],
    [400, 'line\nbreak', { code: 'invalid_request', message: 'Bad Request', status: 400 }],
    [400, 'é', { code: 'invalid_request', message: 'Bad Request', status: 400 }],
    [499, '\u0000', { code: 'invalid_request', message: 'invalid request', status: 400 }],
    [400, ' ~', { code: 'invalid_request', message: ' ~', status: 400 }],
  ])('an exposed %i "%s" of a stock middleware', (status, message, body) => {
    expect(toErrorBody(createError(status, message, { expose: true }))).toStrictEqual(body);
  });

  test.each([
    ['an unexposed 4xx', createError(400, 'secret', { expose: false })],
    ['an exposed 5xx', createError(500, 'secret', { expose: true })],
    ['an exposed 399', Object.assign(new Error('secret'), { statusCode: 399, expose: true })],
    ['an exposed 500', Object.assign(new Error('secret'), { statusCode: 500, expose: true })],
    ['a non-integer status', Object.assign(new Error('secret'), { statusCode: 400.5, expose: true })],
    ['a status as text', Object.assign(new Error('secret'), { statusCode: '400', expose: true })],
    ['a plain Error', new Error('secret pet-store-inventory')],
    ['a string', 'secret'],
    ['null', null],
    ['a conditional check failure', sdkError('ConditionalCheckFailedException', 400)],
  ])('%s is 500 internal_error, revealing nothing', (_name, error) => {
    expect(toErrorBody(error)).toStrictEqual({
      code: 'internal_error',
      message: 'internal error',
      status: 500,
    });
  });

  test.each([
    ['throttling', sdkError('ProvisionedThroughputExceededException', 400)],
    ['a 5xx', sdkError('InternalServerError', 500)],
    ['a network failure', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
  ])('DynamoDB unavailable (%s) is 503 service_unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(toErrorBody(error)).toStrictEqual({
      code: 'service_unavailable',
      message: 'the inventory database is unavailable; retry later',
      status: 503,
    });
  });

  test('a thrown value that is no Error is not DynamoDB unavailable', () => {
    expect(isDatabaseUnavailable({ name: 'ThrottlingException', $metadata: { httpStatusCode: 503 } })).toBe(
      false,
    );
  });
});

describe('responses', () => {
  test('a JSON response carries the content type and the extra headers', () => {
    expect(jsonResponse(201, '{}', { Location: '/v1/x' })).toStrictEqual({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: '/v1/x' },
      body: '{}',
    });
    expect(errorResponse({ code: 'gone', message: 'm', status: 410 })).toStrictEqual({
      statusCode: 410,
      headers: { 'Content-Type': 'application/json' },
      body: '{"code":"gone","message":"m","status":410}',
    });
  });
});

describe('grantedScopes', () => {
  test.each([
    ['orders:read  inventory:write ', ['orders:read', 'inventory:write']],
    ['', []],
    [undefined, []],
    [7, []],
  ])('%j grants %j', (scope, granted) => {
    expect(grantedScopes(scope)).toStrictEqual(granted);
  });
});

describe('marginMs: what the deadline keeps for the answer', () => {
  test.each([
    [1000, 500],
    [2000, 1000],
    [3000, 1000],
    [29_000, 1000],
  ])('of %i ms left, %i ms', (remaining, margin) => {
    expect(marginMs(remaining)).toBe(margin);
  });
});
