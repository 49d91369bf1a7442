/**
 * The Lambda proxy event as the function receives it (behaviour.md "Request as the function receives it",
 * E1-E6), on the fixture API (test/support/api-fixture.ts): its echoing function answers with the event.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeTemporaryDirs } from '../testing/temporary-dirs.ts';
import { type ApiFixture, startApiFixture } from './support/api-fixture.ts';
import { send } from './support/raw-exchange.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await startApiFixture({ routes: [{ method: 'GET', path: '/items/{itemId}', authorized: true }] });
});
afterAll(async () => {
  await api?.close();
  await removeTemporaryDirs();
});

const allow: [string, string] = ['Authorization', 'Bearer allow'];

/** The event the echoing function received for `GET target` with `headers` (200 asserted). */
async function seen(target: string, headers: [string, string][] = [allow]) {
  const answer = await send(api.port, 'GET', target, headers);
  expect(answer.status, answer.body).toBe(200);
  return JSON.parse(answer.body);
}

describe('the event the function receives', () => {
  test.each([
    ['a%40b', 'a@b'],
    ['%37', '7'],
    ['%2537', 'a double encoding'],
    ['%FF', 'an invalid UTF-8 byte'],
    ['a%2Fb', 'an encoded slash'],
  ])('E1: the path parameter %s (%s) is passed as sent, still percent-encoded', async (segment) => {
    const event = await seen(`/v1/items/${segment}`);
    expect(event.pathParameters).toEqual({ itemId: segment });
  });

  test('E2: query names and values decoded, + as a space', async () => {
    const event = await seen('/v1/items/1?a=b%20c&d=e+f&%6Eame=%C3%A9');
    expect(event.queryStringParameters).toEqual({ a: 'b c', d: 'e f', name: 'é' });
    expect(event.multiValueQueryStringParameters).toEqual({ a: ['b c'], d: ['e f'], name: ['é'] });
  });

  test('E3: a repeated name keeps every value in the multi-value map and the last in the single one', async () => {
    const event = await seen('/v1/items/1?a=1&a=2&empty=&bare');
    expect(event.queryStringParameters).toEqual({ a: '2', empty: '', bare: '' });
    expect(event.multiValueQueryStringParameters).toEqual({ a: ['1', '2'], empty: [''], bare: [''] });
  });

  test('E3: no query string is null in both', async () => {
    const event = await seen('/v1/items/1');
    expect([event.queryStringParameters, event.multiValueQueryStringParameters]).toEqual([null, null]);
  });

  test('E4: header names as sent, a repeat in multiValueHeaders and its last value in headers', async () => {
    const event = await seen('/v1/items/1', [
      allow,
      ['X-Twice', 'one'],
      ['X-Twice', 'two'],
      ['x-lower', 'v'],
    ]);
    expect(event.headers).toMatchObject({ 'X-Twice': 'two', 'x-lower': 'v', Authorization: 'Bearer allow' });
    expect(event.multiValueHeaders).toMatchObject({ 'X-Twice': ['one', 'two'], 'x-lower': ['v'] });
    // Not the headers API Gateway adds (X-Amzn-Trace-Id, X-Forwarded-For, -Port, -Proto).
    expect(Object.keys(event.headers).filter((name) => /^x-(amzn|forwarded)-/i.test(name))).toEqual([]);
  });

  test.each([
    ['a Deny then an Allow', ['Bearer deny-first', 'Bearer allow-last'], 200],
    ['an Allow then a Deny', ['Bearer allow-first', 'Bearer deny-last'], 403],
  ])(
    'E5: of two Authorization headers (%s) the authorizer decides on the last, the one the event carries',
    async (_what, [first, last], status) => {
      const answer = await send(api.port, 'GET', '/v1/items/1', [
        ['Authorization', first as string],
        ['authorization', last as string],
      ]);
      expect(answer.status, answer.body).toBe(status);
      if (status === 200) {
        const event = JSON.parse(answer.body);
        expect(event.headers.authorization).toBe(last);
        expect(event.multiValueHeaders).toMatchObject({ Authorization: [first], authorization: [last] });
      } else {
        expect(answer.body).toBe(
          '{"message":"User is not authorized to access this resource with an explicit deny"}',
        );
      }
      const asked = await api.authorizerCalls();
      expect(asked).toContain((last as string).replace('Bearer ', ''));
      expect(asked).not.toContain((first as string).replace('Bearer ', ''));
    },
  );

  test('E5: the authorizer receives the whole header value as its token', async () => {
    await seen('/v1/items/1', [['Authorization', 'Bearer whole-value']]);
    expect(await api.authorizerCalls()).toContain('whole-value');
  });
});

describe('the header-size limit', () => {
  test('E6: request line and header values over 10,240 bytes are REQUEST_TOO_LARGE, 413; just under passes', async () => {
    const under = await send(api.port, 'GET', '/v1/items/1', [allow, ['X-Pad', 'p'.repeat(10_100)]]);
    expect(under.status).toBe(200);
    const over = await send(api.port, 'GET', '/v1/items/1', [allow, ['X-Pad', 'p'.repeat(10_300)]]);
    expect([over.status, over.headers['x-amzn-errortype'], over.body]).toEqual([
      413,
      'RequestTooLargeException',
      '{"message":"Request Too Long"}',
    ]);
  });
});
