/**
 * The responses API Gateway writes itself (behaviour.md "Responses API Gateway writes", G1-G5), on the fixture
 * API (test/support/api-fixture.ts) with gateway responses of its own: UNAUTHORIZED with a Velocity template of
 * `$context` variables and a static header, ACCESS_DENIED with another status, DEFAULT_4XX copying the request's
 * `Origin`; and a MOCK CORS preflight.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeTemporaryDirs } from '../testing/temporary-dirs.ts';
import { type ApiFixture, startApiFixture } from './support/api-fixture.ts';
import { exchange, send } from './support/raw-exchange.ts';

/** CDK's preflight for several origins: the request's `Origin` is echoed when it is one of them. */
const preflight = `#set($origin = $input.params().header.get("Origin"))
#if($origin == "") #set($origin = $input.params().header.get("origin")) #end
#if($origin == "https://a.example" || $origin == "https://b.example")
  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)
#else
  #set($context.responseOverride.status = 403)
#end`;

let api: ApiFixture;
beforeAll(async () => {
  api = await startApiFixture({
    routes: [
      { method: 'GET', path: '/items', authorized: true },
      {
        method: 'OPTIONS',
        path: '/items',
        mock: {
          statusCode: 204,
          headers: { 'Access-Control-Allow-Methods': 'GET,OPTIONS', Vary: 'Origin' },
          template: preflight,
        },
      },
    ],
    gatewayResponses: {
      UNAUTHORIZED: {
        statusCode: 401,
        headers: { 'WWW-Authenticate': 'Bearer' },
        template:
          '{"type":"$context.error.responseType","text":$context.error.messageString,"raw":"$context.error.message","requestId":"$context.requestId"}',
      },
      ACCESS_DENIED: { statusCode: 401 },
      DEFAULT_4XX: { requestHeaders: { 'Access-Control-Allow-Origin': 'Origin' } },
    },
  });
});
afterAll(async () => {
  await api?.close();
  await removeTemporaryDirs();
});

const allow: [string, string] = ['Authorization', 'Bearer allow'];

describe('headers API Gateway adds', () => {
  test('G1: every response carries a request id and an API Gateway id; its own ones x-amzn-ErrorType, customised or not', async () => {
    const ok = await send(api.port, 'GET', '/v1/items', [allow]);
    const customised = await send(api.port, 'GET', '/v1/items');
    const statusChanged = await send(api.port, 'GET', '/v1/items', [['Authorization', 'Bearer deny']]);
    const byDefault = await send(api.port, 'GET', '/v1/nowhere');
    for (const answer of [ok, customised, statusChanged, byDefault]) {
      expect(answer.headers['x-amzn-requestid']).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers['x-amz-apigw-id']).toMatch(/^[A-Za-z0-9_-]{16}$/);
    }
    expect([ok.status, ok.headers['x-amzn-errortype']]).toEqual([200, undefined]);
    expect([customised.status, customised.headers['x-amzn-errortype']]).toEqual([
      401,
      'UnauthorizedException',
    ]);
    expect([statusChanged.status, statusChanged.headers['x-amzn-errortype'], statusChanged.body]).toEqual([
      401,
      'AccessDeniedException',
      '{"message":"User is not authorized to access this resource with an explicit deny"}',
    ]);
    expect([byDefault.status, byDefault.headers['x-amzn-errortype']]).toEqual([
      403,
      'MissingAuthenticationTokenException',
    ]);
  });
});

describe('responses no gateway response covers', () => {
  const malformed = '{"message":"malformed HTTP request"}';
  const badHost =
    '{"message":"malformed HTTP request: exactly one Host header with a valid host is required"}';

  test.each([
    ['a bad method', 'BREW /v1/items HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['a malformed request line', 'GET /v1/items HTTP/9\r\nHost: localhost\r\n\r\n'],
    ['a header without a colon', 'GET /v1/items HTTP/1.1\r\nHost: localhost\r\nbroken\r\n\r\n'],
  ])('G2: %s gets 400 with the error body and closes the connection', async (_what, text) => {
    const answer = await exchange(api.port, text);
    expect([answer.status, answer.headers.connection, answer.body]).toEqual([400, 'close', malformed]);
  });

  const request = (hostLines: string, version = '1.1', connection = 'keep-alive') =>
    `GET /v1/items HTTP/${version}\r\n${hostLines}Authorization: Bearer allow\r\nConnection: ${connection}\r\n\r\n`;

  test.each([
    ['an HTTP/1.1 request without Host', request('')],
    ['two Host headers', request('Host: localhost\r\nHost: localhost\r\n')],
    ['two different Host headers', request('Host: localhost\r\nHost: example.com\r\n')],
    ['an empty Host', request('Host: \r\n')],
    ['an empty Host in HTTP/1.0', request('Host:\r\n', '1.0')],
    ['a Host that is no host', request('Host: local host\r\n')],
    ['a Host with a path', request('Host: localhost/v1\r\n')],
  ])('G2: %s gets 400 with the error body and closes the connection', async (_what, text) => {
    const answer = await exchange(api.port, text);
    expect([answer.status, answer.headers.connection, answer.body]).toEqual([400, 'close', badHost]);
  });

  test.each([
    ['a host and port', request('Host: localhost:3000\r\n', '1.1', 'close')],
    ['an IPv6 literal', request('Host: [::1]:3000\r\n', '1.1', 'close')],
    ['an HTTP/1.0 request without Host', request('', '1.0', 'close')],
  ])('G2: %s is served', async (_what, text) => {
    expect((await exchange(api.port, text)).status).toBe(200);
  });

  test('G2: headers past the HTTP parser limit get the REQUEST_TOO_LARGE response, 413', async () => {
    const answer = await exchange(
      api.port,
      `GET /v1/items HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`,
    );
    expect([answer.status, answer.headers.connection, answer.body]).toEqual([
      413,
      'close',
      '{"message":"Request Too Long"}',
    ]);
  });
});

describe('headers mapped from the request', () => {
  test('G3: a gateway response copies the mapped request header', async () => {
    const answer = await send(api.port, 'GET', '/v1/nowhere', [['Origin', 'https://a.example']]);
    expect([answer.status, answer.headers['access-control-allow-origin']]).toEqual([
      403,
      'https://a.example',
    ]);
  });

  test('G3: of a repeated request header, the last value is copied (its single value, as E4)', async () => {
    const answer = await send(api.port, 'GET', '/v1/nowhere', [
      ['Origin', 'https://a.example'],
      ['Origin', 'https://b.example'],
    ]);
    expect(answer.headers['access-control-allow-origin']).toBe('https://b.example');
  });

  test('G3: without the request header the response header is left out', async () => {
    const answer = await send(api.port, 'GET', '/v1/nowhere');
    expect(answer.status).toBe(403);
    expect(answer.headers).not.toHaveProperty('access-control-allow-origin');
  });
});

describe('a MOCK integration', () => {
  test('G4: the mapping template picks the request Origin into a header override; static headers are set', async () => {
    const answer = await send(api.port, 'OPTIONS', '/v1/items', [['Origin', 'https://b.example']]);
    expect(answer.status).toBe(204);
    expect(answer.headers).toMatchObject({
      'access-control-allow-origin': 'https://b.example',
      'access-control-allow-methods': 'GET,OPTIONS',
      vary: 'Origin',
    });
  });

  test('G4: the template overrides the status', async () => {
    const answer = await send(api.port, 'OPTIONS', '/v1/items', [['Origin', 'https://elsewhere.example']]);
    expect(answer.status).toBe(403);
    expect(answer.headers).not.toHaveProperty('access-control-allow-origin');
  });
});

describe('the gateway response body', () => {
  test('G5: a response template is Velocity with $context.error and $context.requestId; static headers are set', async () => {
    const answer = await send(api.port, 'GET', '/v1/items');
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer');
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual({
      type: 'UNAUTHORIZED',
      text: 'Unauthorized',
      raw: 'Unauthorized',
      requestId: answer.headers['x-amzn-requestid'],
    });
  });

  test("G5: without a template the body is API Gateway's default, of $context.error.messageString", async () => {
    const answer = await send(api.port, 'GET', '/v1/nowhere');
    expect(answer.body).toBe('{"message":"Missing Authentication Token"}');
  });
});
