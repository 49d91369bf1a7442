/**
 * The TOKEN authorizer as API Gateway REST runs it (behaviour.md "The TOKEN authorizer", A1-A9), on the
 * fixture API (test/support/api-fixture.ts): its stand-in authorizer's token picks the outcome
 * (testing/functions/behaviour-authorizer.ts) and records every invocation; the responses are API Gateway's
 * defaults (the fixture customises none).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { removeTemporaryDirs } from '../testing/temporary-dirs.ts';
import { type ApiFixture, startApiFixture } from './support/api-fixture.ts';
import { parseAnswer, send } from './support/raw-exchange.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await startApiFixture({
    routes: [
      { method: 'GET', path: '/items', authorized: true },
      { method: 'DELETE', path: '/items/{itemId}', authorized: true },
    ],
  });
});
afterAll(async () => {
  await api?.close();
  await removeTemporaryDirs();
});

const unauthorized = '{"message":"Unauthorized"}';
const explicitDeny = '{"message":"User is not authorized to access this resource with an explicit deny"}';
const configurationError = '{"message":null}';

/** `GET /v1/items` with these header lines. */
const get = (headers: [string, string][]) => send(api.port, 'GET', '/v1/items', headers);
/** How many times the authorizer was invoked with `token`. */
const callsWith = async (token: string) => (await api.authorizerCalls()).filter((t) => t === token).length;

describe('what the authorizer decides', () => {
  test.each([
    ['no Authorization header', []],
    ['an empty value', [['Authorization', '']]],
    ['another scheme', [['Authorization', 'Basic YTpi']]],
    ['a value with more after the token', [['Authorization', 'Bearer never-asked trailing']]],
    ['the token alone', [['Authorization', 'never-asked']]],
  ] as [string, [string, string][]][])(
    'A1: %s fails the validation expression: 401 UNAUTHORIZED, the function not invoked',
    async (_what, headers) => {
      const before = await api.authorizerCalls();
      const answer = await get(headers);
      expect([answer.status, answer.headers['x-amzn-errortype'], answer.body]).toEqual([
        401,
        'UnauthorizedException',
        unauthorized,
      ]);
      expect(await api.authorizerCalls()).toEqual(before);
    },
  );

  test('A2: an Allow runs the method; principalId and context values reach requestContext.authorizer as strings', async () => {
    const answer = await get([['Authorization', 'Bearer allow-context']]);
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body).requestContext.authorizer).toEqual({
      principalId: 'someone',
      plan: 'basic',
      limit: '5',
      active: 'true',
      integrationLatency: expect.any(Number),
    });
  });

  test('A3: a Deny is 403 ACCESS_DENIED, and the method does not run', async () => {
    const answer = await get([['Authorization', 'Bearer deny-once']]);
    expect([answer.status, answer.headers['x-amzn-errortype'], answer.body]).toEqual([
      403,
      'AccessDeniedException',
      explicitDeny,
    ]);
  });

  test('A4: throwing exactly Unauthorized is 401 UNAUTHORIZED', async () => {
    const answer = await get([['Authorization', 'Bearer unauthorized']]);
    expect([answer.status, answer.headers['x-amzn-errortype'], answer.body]).toEqual([
      401,
      'UnauthorizedException',
      unauthorized,
    ]);
  });

  test.each([
    ['A5', 'throwing another error', 'throws'],
    ['A6', 'timing out', 'slow'],
    ['A7', 'returning no policy', 'malformed'],
  ])(
    '%s: an authorizer %s is 500 AUTHORIZER_CONFIGURATION_ERROR, not cached',
    async (_row, _what, token) => {
      for (let i = 1; i <= 2; i++) {
        const answer = await get([['Authorization', `Bearer ${token}`]]);
        expect([answer.status, answer.headers['x-amzn-errortype'], answer.body]).toEqual([
          500,
          'AuthorizerConfigurationException',
          configurationError,
        ]);
        expect(await callsWith(token)).toBe(i);
      }
    },
    20_000,
  );
});

describe('the cache', () => {
  test('A9: an Allow and a Deny are cached per token and serve every method; the Deny stays 403', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await get([['Authorization', 'Bearer deny-cached']])).status).toBe(403);
      expect((await get([['Authorization', 'Bearer allow-cached']])).status).toBe(200);
      const other = await send(api.port, 'DELETE', '/v1/items/1', [['Authorization', 'Bearer allow-cached']]);
      expect(other.status).toBe(200);
    }
    expect([await callsWith('deny-cached'), await callsWith('allow-cached')]).toEqual([1, 1]);
  });

  test('A9: the key is the whole header value: the same value is served from the cache, another one asks again', async () => {
    expect((await get([['Authorization', 'Bearer allow-key']])).status).toBe(200);
    expect((await get([['Authorization', 'Bearer allow-key']])).status).toBe(200);
    expect((await get([['Authorization', 'Bearer allow-key=']])).status).toBe(200);
    const calls = await api.authorizerCalls();
    expect([
      calls.filter((t) => t === 'allow-key').length,
      calls.filter((t) => t === 'allow-key=').length,
    ]).toEqual([1, 1]);
  });
});

describe('AUTHORIZER_FAILURE', () => {
  test('A8: an authorizer that cannot end before a shutdown cuts the drain is not run: 500 AUTHORIZER_FAILURE', async () => {
    // The authorizer's Timeout (30 s) ends past the drain's cut (29 s from the shutdown's start, less a margin).
    const draining = await startApiFixture({
      routes: [{ method: 'GET', path: '/items', authorized: true }],
      authorizerTimeoutSeconds: 30,
    });
    const socket = connect(draining.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => {});
    const ended = new Promise((resolve) => socket.on('close', resolve));
    // A first request in flight (past its authorizer, 1 s in its function) keeps the connection through the
    // shutdown; a second is pipelined behind it once the shutdown has started.
    socket.write(
      'GET /v1/items?delayMs=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer in-time\r\n\r\n',
    );
    await vi.waitFor(async () => expect(await draining.authorizerCalls()).toEqual(['in-time']), {
      timeout: 10_000,
      interval: 20,
    });
    const closing = draining.close();
    socket.write('GET /v1/items HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer too-late\r\n\r\n');
    await closing;
    await ended;
    // The second answer's status line (the first answer's body, an event, holds "HTTP/1.1" but not as one).
    const at = received.slice(1).search(/HTTP\/1\.1 \d{3} /) + 1;
    const [first, second] = [parseAnswer(received.slice(0, at)), parseAnswer(received.slice(at))];
    expect(first.status, first.body).toBe(200);
    expect([second.status, second.headers['x-amzn-errortype'], second.body]).toEqual([
      500,
      'AuthorizerFailureException',
      '{"message":null}',
    ]);
    expect(await draining.authorizerCalls()).toEqual(['in-time']);
  }, 40_000);
});
