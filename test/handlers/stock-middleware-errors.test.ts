/**
 * An error of the http-errors convention (middy's `createError`: `statusCode`, `expose`), thrown by a middleware
 * on the chain every HTTP function starts from, becomes the contract's Error body (docs/contract.md "Errors";
 * docs/architecture.md "Errors of stock middlewares"): an exposed 4xx keeps its status where the contract has a code for it (415
 * and 422 become 400 `invalid_request`), an unexposed or 5xx one is 500 `internal_error` revealing nothing.
 */
import { createError } from '@middy/util';
import { lambdaContext } from 'local-aws';
import { describe, expect, test } from 'vitest';
import { operationNamed } from '#lib/api.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { updateInventoryEvent } from '#test/support/handler-suite.ts';

/** updateInventory's middleware chain with a stock-style middleware that throws `error` before the handler. */
function answerWhenThrown(error: unknown) {
  const handler = httpFunction(operationNamed('updateInventory'))
    .use({
      before: () => {
        throw error;
      },
    })
    .handler(async () => jsonResponse(200, '{}'));
  return handler(updateInventoryEvent('5', '{"quantity": 1}'), lambdaContext('updateInventory'));
}

/** The Error response the client must receive: JSON content type and exactly code, message, status. */
function errorResult(status: number, code: string, message: string) {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code, message, status }),
  };
}

describe('an exposed 4xx of a stock middleware', () => {
  test.each([
    [415, 'Unsupported Media Type', 400, 'invalid_request'],
    [422, 'Invalid or malformed JSON was provided', 400, 'invalid_request'],
    [413, 'Payload Too Large', 413, 'payload_too_large'],
    [404, 'Route does not exist', 404, 'not_found'],
    [400, 'Invalid path parameter encoding', 400, 'invalid_request'],
    [409, 'Conflict', 409, 'conflict'],
    [429, 'Too Many Requests', 429, 'too_many_requests'],
    [405, 'Method Not Allowed', 400, 'invalid_request'],
  ])('%i "%s" is %i %s with its message', async (thrown, message, status, code) => {
    const result = await answerWhenThrown(createError(thrown, message, { expose: true }));
    expect(result).toEqual(errorResult(status, code, message));
  });

  test.each([
    ['a control character', 'line one\nline two'],
    ['a character outside ASCII', 'bad café'],
    ['over 200 characters', 'x'.repeat(201)],
    ['empty', ''],
  ])('with a message holding %s, the message is the reason phrase of its status', async (_, message) => {
    const thrown = createError(422, 'x', { expose: true });
    thrown.message = message;
    expect(await answerWhenThrown(thrown)).toEqual(
      errorResult(400, 'invalid_request', 'Unprocessable Entity'),
    );
  });

  test('a 4xx with no reason phrase (499) and an unsafe message is 400 invalid_request "invalid request"', async () => {
    expect(await answerWhenThrown(createError(499, 'x'.repeat(201), { expose: true }))).toEqual(
      errorResult(400, 'invalid_request', 'invalid request'),
    );
  });
});

describe('an error that is not an exposed 4xx', () => {
  const internal = errorResult(500, 'internal_error', 'internal error');

  test.each([
    ['a 4xx with expose: false', createError(400, 'table Inventory, key petId=5', { expose: false })],
    ['a 5xx marked exposed', createError(503, 'table Inventory is throttled', { expose: true })],
    ['a 5xx', createError(500, 'table Inventory: ValidationException')],
    ['an object with statusCode but no expose', Object.assign(new Error('key petId=5'), { statusCode: 404 })],
    ['an exposed error whose statusCode is not a number', { statusCode: '404', expose: true, message: 'x' }],
  ])('%s is 500 internal_error, revealing nothing', async (_, error) => {
    expect(await answerWhenThrown(error)).toEqual(internal);
  });
});
