/**
 * The request's parts as the HTTP functions read them: the `limit` of the list operations (lib/http/page-limit.ts,
 * docs/contract.md "Store orders"), query, path and header values (lib/http/request-parameters.ts,
 * lib/http/headers.ts; local-aws/behaviour.md E1-E4) and the names a 400 message lists (lib/http/errors.ts).
 */
import { describe, expect, test } from 'vitest';
import { type ErrorBody, HttpError, listedNames, unknownMembers } from '#lib/http/errors.ts';
import { headerValues } from '#lib/http/headers.ts';
import { pageLimits, parseLimit } from '#lib/http/page-limit.ts';
import { ownValue, singleQueryValue } from '#lib/http/request-parameters.ts';

/** The Error body `run` throws (it must throw an {@link HttpError}). */
function thrownBody(run: () => unknown): ErrorBody {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return error.body;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('parseLimit', () => {
  test('absent is 100', () => {
    expect(parseLimit(undefined)).toBe(100);
    expect(pageLimits).toStrictEqual({ default: 100, max: 1000 });
  });

  test.each([
    ['1', 1],
    ['9', 9],
    ['10', 10],
    ['999', 999],
    ['1000', 1000],
  ])('%s is %i', (text, limit) => {
    expect(parseLimit(text)).toBe(limit);
  });

  test.each(['0', '1001', '9999', '10000', '01', '+1', '-1', '1.0', '1e2', ' 1', '1 ', '', 'ten', '١'])(
    '%j is 400 invalid_request',
    (text) => {
      expect(thrownBody(() => parseLimit(text))).toStrictEqual({
        code: 'invalid_request',
        message: 'limit must be an integer from 1 to 1000',
        status: 400,
      });
    },
  );
});

describe('query and header values', () => {
  test("ownValue reads the map's own members only", () => {
    expect(ownValue({ limit: '5' }, 'limit')).toBe('5');
    expect(ownValue({ limit: '5' }, 'toString')).toBeUndefined();
    expect(ownValue({ limit: '5' }, 'constructor')).toBeUndefined();
    expect(ownValue(null, 'limit')).toBeUndefined();
    expect(ownValue(undefined, 'limit')).toBeUndefined();
  });

  test('singleQueryValue: the one value, none when absent, 400 when given twice', () => {
    expect(singleQueryValue({ type: ['order.changed'] }, 'type')).toBe('order.changed');
    expect(singleQueryValue({ type: ['order.changed'] }, 'after')).toBeUndefined();
    expect(singleQueryValue(null, 'type')).toBeUndefined();
    expect(singleQueryValue({ type: [] }, 'type')).toBeUndefined();
    expect(thrownBody(() => singleQueryValue({ type: ['a', 'b'] }, 'type'))).toStrictEqual({
      code: 'invalid_request',
      message: 'query parameter type must be given at most once',
      status: 400,
    });
  });

  test('headerValues: every value of the name in any case, in order, from the multi-value map first', () => {
    const event = {
      headers: { 'idempotency-key': 'single' },
      multiValueHeaders: { 'Idempotency-Key': ['a', 'b'], 'IDEMPOTENCY-KEY': ['c'], Other: ['x'] },
    };
    expect(headerValues(event, 'Idempotency-Key')).toStrictEqual(['a', 'b', 'c']);
    expect(headerValues(event, 'idempotency-key')).toStrictEqual(['a', 'b', 'c']);
  });

  test('headerValues: the single-value map when the multi-value one lacks the name; empty when absent', () => {
    const event = { headers: { Authorization: 'Bearer k', Other: 'x' }, multiValueHeaders: { Other: ['x'] } };
    expect(headerValues(event, 'authorization')).toStrictEqual(['Bearer k']);
    expect(headerValues(event, 'Idempotency-Key')).toStrictEqual([]);
    expect(headerValues({ headers: {}, multiValueHeaders: {} }, 'Authorization')).toStrictEqual([]);
    expect(headerValues({ headers: null, multiValueHeaders: null } as never, 'Authorization')).toStrictEqual(
      [],
    );
    expect(headerValues({ headers: { constructor: 'c' }, multiValueHeaders: {} }, '__proto__')).toStrictEqual(
      [],
    );
  });
});

describe('the names a 400 message lists', () => {
  test('JSON-quoted and comma-separated, at most five, then how many more', () => {
    expect(listedNames(['a'])).toBe('"a"');
    expect(listedNames(['a', 'b', 'c', 'd', 'e'])).toBe('"a", "b", "c", "d", "e"');
    expect(listedNames(['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toBe('"a", "b", "c", "d", "e" and 2 more');
  });

  test('each cut to 64 code points, astral characters whole', () => {
    expect(listedNames(['x'.repeat(65)])).toBe(JSON.stringify('x'.repeat(64)));
    expect(listedNames(['x'.repeat(64)])).toBe(JSON.stringify('x'.repeat(64)));
    expect(listedNames(['😀'.repeat(70)])).toBe(JSON.stringify('😀'.repeat(64)));
    expect(listedNames(['"\n'])).toBe('"\\"\\n"');
  });

  test('unknownMembers names the members not allowed, none when all are', () => {
    expect(unknownMembers({ quantity: 1, status: 'x', id: 2 }, ['quantity'])).toBe('"status", "id"');
    expect(unknownMembers({ quantity: 1 }, ['quantity', 'status'])).toBeUndefined();
    expect(unknownMembers({}, [])).toBeUndefined();
  });
});
