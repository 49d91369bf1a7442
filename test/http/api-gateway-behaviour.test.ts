/**
 * The local engine's side of local-aws/behaviour.md, row by row (ids in the test names): this run's
 * synthesized staging stack, with getInventoryItem, getOrderById and the authorizer swapped for stand-ins
 * (test/support/functions/) whose behaviour the request picks, so routing, events, limits, timeouts, authorizer
 * outcomes and the headers API Gateway adds are observed as a client sees them.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Template } from 'local-aws';
import {
  apiModel,
  behaviourAuthorizerModule,
  bytesReadBy,
  createApiServer,
  createEngine,
  type Engine,
  slowInitFunctionModule,
  upload,
} from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { authorizer, operations } from '#lib/api.ts';
import { serviceErrorBody } from '#local/error-body.ts';
import { type RawClient, type RawResponse, rawClient } from '#test/support/raw-http.ts';
import { assemblyDir, servedStagingStack } from '#test/support/synthesized-assembly.ts';

const stub = (name: string) => fileURLToPath(new URL(`../support/functions/${name}.ts`, import.meta.url));
const idOf = (name: string) => {
  const operation = operations.find((candidate) => candidate.name === name);
  if (!operation) throw new Error(`no operation ${name}`);
  return functionLogicalId(operation);
};
const itemFunction = idOf('getInventoryItem');
const orderFunction = idOf('getOrderById');
const authorizerFunction = functionLogicalId(authorizer);
/** Functions whose Init phase is slow (the testing kit's `slowInitFunctionModule`): S13. */
const slowInit = {
  /** 3 s of Init, Timeout 2 s: the Init phase does not count against the Timeout. */
  withinLimit: idOf('getPetById'),
  /** 11 s of Init, Timeout 2 s: past the 10 s limit, the Init phase again within the Timeout fails. */
  pastLimitShortTimeout: idOf('listInventoryHistory'),
  /** 11 s of Init, Timeout 15 s: past the limit, the Init phase again within the Timeout succeeds. */
  pastLimitLongTimeout: idOf('updateOrder'),
};

let server: Server;
let engine: Engine;
let baseUrl: string;
let client: RawClient;
let workDir: string;
let callsFile: string;
/** The actions of the item function's invocations, one a line, as each starts. */
let startsFile: string;
let serverBytesRead: () => number;

/** An answer and the milliseconds from its request's start to the answer. */
interface TimedAnswer {
  answer: RawResponse;
  elapsedMs: number;
}

/**
 * The requests of S6 and S13, which wait on timers of their own functions (getOrderById, getPetById,
 * listInventoryHistory and updateOrder, none of which another test calls): sent in `beforeAll`, so that their
 * 29 s and 22 s pass beside the rest of the file; each row's test awaits its answers.
 */
let slowRows: {
  integrationTimeout: Promise<TimedAnswer>;
  initWithinLimit: Promise<TimedAnswer>;
  initPastLimitShortTimeout: Promise<TimedAnswer>;
  initPastLimitLongTimeout: Promise<TimedAnswer>;
};

/** `method path` with a key the authorizer allows, sent now; a failure is reported by the test that awaits it. */
function sentNow(method: string, path: string): Promise<TimedAnswer> {
  const started = Date.now();
  const timed = send(method, path, [allow]).then((answer) => ({ answer, elapsedMs: Date.now() - started }));
  timed.catch(() => {});
  return timed;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'behaviour-'));
  callsFile = join(workDir, 'authorizer-calls');
  await writeFile(callsFile, '');
  startsFile = join(workDir, 'item-starts');
  await writeFile(startsFile, '');
  const template = structuredClone((await servedStagingStack()).template) as Template;
  const properties = (logicalId: string) =>
    template.Resources[logicalId]?.Properties as Record<string, unknown>;
  properties(itemFunction).Timeout = 2;
  const itemEnvironment = properties(itemFunction).Environment as { Variables?: Record<string, string> };
  properties(itemFunction).Environment = {
    Variables: { ...itemEnvironment?.Variables, BEHAVIOUR_STARTS: startsFile },
  };
  properties(orderFunction).Timeout = 60;
  for (const [logicalId, delayMs, timeout] of [
    [slowInit.withinLimit, 3_000, 2],
    [slowInit.pastLimitShortTimeout, 11_000, 2],
    [slowInit.pastLimitLongTimeout, 11_000, 15],
  ] as const) {
    properties(logicalId).Timeout = timeout;
    properties(logicalId).Environment = { Variables: { INIT_DELAY_MS: String(delayMs) } };
  }
  properties(authorizerFunction).Timeout = 2;
  properties(authorizerFunction).Environment = { Variables: { BEHAVIOUR_CALLS: callsFile } };
  const sources: Record<string, string> = {
    [itemFunction]: stub('behaviour-function'),
    [orderFunction]: stub('behaviour-function'),
    [authorizerFunction]: behaviourAuthorizerModule,
    ...Object.fromEntries(Object.values(slowInit).map((logicalId) => [logicalId, slowInitFunctionModule])),
  };
  const model = apiModel(template, {
    assemblyDir: assemblyDir(),
    tableName: (logicalId) => logicalId,
    // The queues some functions name (sendTestWebhook's delivery queue): none of them is called here.
    resourceValue: (logicalId) => `http://127.0.0.1:9/000000000000/${logicalId}`,
    overrides: { AWS_REGION: 'us-east-1' },
    sourceOf: (logicalId) => sources[logicalId],
  });
  engine = createEngine(model, serviceErrorBody);
  server = createApiServer((request, response) => void engine.listener(request, response), {
    gatewayResponses: model.gatewayResponses,
    errorBody: serviceErrorBody,
  });
  serverBytesRead = bytesReadBy(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = rawClient(baseUrl, { keepAlive: false });
  slowRows = {
    integrationTimeout: sentNow('GET', '/v1/store/orders/slow'),
    initWithinLimit: sentNow('GET', '/v1/pets/1'),
    initPastLimitShortTimeout: sentNow('GET', '/v1/inventory/1/history'),
    initPastLimitLongTimeout: sentNow('PATCH', '/v1/store/orders/1'),
  };
});
afterAll(async () => {
  client?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await engine?.close();
  await rm(workDir, { recursive: true, force: true });
});

/** One request with exactly these raw header lines, each on a new connection. */
function send(
  method: string,
  path: string,
  headers: [string, string][] = [],
  body?: Buffer,
): Promise<RawResponse> {
  return client.send({ method, path, headers, ...(body === undefined ? {} : { body }) });
}

const allow: [string, string] = ['Authorization', 'Bearer allow'];
const errorBody = (code: string, message: string, status: number) =>
  JSON.stringify({ code, message, status });
const notFound = errorBody(
  'not_found',
  'no such route or method: the operations are listed in the API description (openapi.yaml)',
  404,
);
const unauthorized = errorBody(
  'unauthorized',
  'a valid API key is required: send Authorization: Bearer <API_KEY>',
  401,
);
const unavailable = errorBody(
  'service_unavailable',
  'the service is temporarily unavailable; retry later',
  503,
);
const internal = errorBody('internal_error', 'internal error', 500);

async function seen(path: string, headers: [string, string][] = [allow]) {
  const answer = await send('GET', path, headers);
  expect(answer.status, answer.text).toBe(200);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

/** Asserts that `method path` (with a key the authorizer allows) is no route: 404 with exactly {@link notFound}. */
async function expectNoRoute(method: string, path: string) {
  const answer = await send(method, path, [allow]);
  expect([answer.status, answer.text]).toEqual([404, notFound]);
}

describe('routing', () => {
  test('R1: one trailing slash routes as without it', async () => {
    expect((await seen('/v1/inventory/echo/')).pathParameters).toEqual({ petId: 'echo' });
  });

  test('R2: duplicate slashes are no route', async () => {
    await expectNoRoute('GET', '/v1//inventory/echo');
  });

  test.each(['HEAD', 'OPTIONS', 'DELETE', 'PUT'])(
    'R3: %s on a resource without that method is no route',
    async (method) => {
      const answer = await send(method, '/v1/inventory/echo', [allow]);
      expect(answer.status).toBe(404);
      expect(answer.headers['x-amzn-errortype']).toBe('MissingAuthenticationTokenException');
    },
  );
});

describe('routing beside a static resource', () => {
  test('R5: GET on /inventory/batch (a resource with POST only) is the sibling {petId} with petId "batch"', async () => {
    // Only getInventoryItem's function is the echoing stand-in: the request reached it.
    expect((await seen('/v1/inventory/batch')).pathParameters).toEqual({ petId: 'batch' });
  });

  test('R5: a method neither /inventory/batch nor /inventory/{petId} has is no route', async () => {
    await expectNoRoute('DELETE', '/v1/inventory/batch');
  });
});

describe('the event the function receives', () => {
  test('E2: query names and values decoded, + as a space', async () => {
    const event = await seen('/v1/inventory/echo?a=b%20c&d=e+f&%6Eame=%C3%A9');
    expect(event.queryStringParameters).toEqual({ a: 'b c', d: 'e f', name: 'é' });
  });

  test('E3: a repeated name keeps every value in the multi-value map and the last in the single one', async () => {
    const event = await seen('/v1/inventory/echo?a=1&a=2&empty=');
    expect(event.queryStringParameters).toEqual({ a: '2', empty: '' });
    expect(event.multiValueQueryStringParameters).toEqual({ a: ['1', '2'], empty: [''] });
  });

  test('E3: no query string is null in both', async () => {
    const event = await seen('/v1/inventory/echo');
    expect([event.queryStringParameters, event.multiValueQueryStringParameters]).toEqual([null, null]);
  });

  test('E4: header names as sent, a repeat in multiValueHeaders and its last value in headers', async () => {
    const event = await seen('/v1/inventory/echo', [allow, ['X-Twice', 'one'], ['X-Twice', 'two']]);
    expect((event.headers as Record<string, string>)['X-Twice']).toBe('two');
    expect((event.multiValueHeaders as Record<string, string[]>)['X-Twice']).toEqual(['one', 'two']);
  });

  test.each([
    ['a Deny then an Allow', ['Bearer deny-first', 'Bearer allow-last'], 200],
    ['an Allow then a Deny', ['Bearer allow-first', 'Bearer deny-last'], 401],
  ])(
    'E5: of two Authorization headers (%s) the authorizer decides on the last, the one the event carries',
    async (_what, [first, last], status) => {
      const answer = await send('GET', '/v1/inventory/echo', [
        ['Authorization', first as string],
        ['authorization', last as string],
      ]);
      expect(answer.status, answer.text).toBe(status);
      if (status === 200) {
        const event = JSON.parse(answer.text);
        expect(event.headers.authorization).toBe(last);
        expect(event.multiValueHeaders).toMatchObject({ Authorization: [first], authorization: [last] });
      } else {
        expect(answer.text).toBe(unauthorized);
      }
      const asked = (await readFile(callsFile, 'utf8')).split('\n');
      expect(asked).toContain((last as string).replace('Bearer ', ''));
      expect(asked).not.toContain((first as string).replace('Bearer ', ''));
    },
  );
});

describe('sizes and time limits', () => {
  test('E6: header values over 10,240 bytes are 413; just under passes', async () => {
    const under = await send('GET', '/v1/inventory/echo', [allow, ['X-Pad', 'p'.repeat(9_900)]]);
    expect(under.status).toBe(200);
    const over = await send('GET', '/v1/inventory/echo', [allow, ['X-Pad', 'p'.repeat(10_300)]]);
    expect(over.status).toBe(413);
    expect(over.headers['x-amzn-errortype']).toBe('RequestTooLargeException');
  });

  test('S2: an invocation payload over 6 MB is 413 and never reaches the function', async () => {
    const body = Buffer.alloc(6_500_000, 'a');
    const answer = await send(
      'GET',
      '/v1/inventory/echo',
      [allow, ['Content-Length', String(body.length)]],
      body,
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  test.each([
    ['S3', 'a buffered result over 6 MB', 'huge'],
    ['S4', 'a function that throws', 'throw'],
    ['S5', 'a function past its timeout', 'slow'],
  ])(
    '%s: %s is the INTEGRATION_FAILURE response',
    async (_row, _what, action) => {
      const answer = await send('GET', `/v1/inventory/${action}`, [allow]);
      expect([answer.status, answer.text]).toEqual([500, internal]);
    },
    15_000,
  );

  test.each([
    ['S5', 'a timeout', 'slow'],
    ['S4', 'a crash', 'crash'],
  ])(
    '%s: after %s the waiting invocation gets a fresh execution environment and succeeds',
    async (_row, _what, action) => {
      // The authorizer's answer cached first; then every environment of the pool (4) fails while a fifth
      // request waits for one of them.
      expect((await send('GET', '/v1/inventory/echo', [allow])).status).toBe(200);
      // The starts of `action` so far (earlier rows start it too), then the four failing ones.
      const startsOf = async () =>
        (await readFile(startsFile, 'utf8')).split('\n').filter((line) => line === action).length;
      const before = await startsOf();
      const failing = Array.from({ length: 4 }, () => send('GET', `/v1/inventory/${action}`, [allow]));
      await vi.waitFor(
        async () => {
          expect(await startsOf()).toBe(before + 4);
        },
        { timeout: 10_000, interval: 20 },
      );
      const next = await send('GET', '/v1/inventory/echo', [allow]);
      expect(next.status, next.text).toBe(200);
      expect(JSON.parse(next.text).pathParameters).toEqual({ petId: 'echo' });
      for (const failed of await Promise.all(failing)) {
        expect([failed.status, failed.text]).toEqual([500, internal]);
      }
    },
    15_000,
  );

  test('S1: credentials are checked before the body is read: 30 anonymous 9 MB bodies are 401, their bodies unread', async () => {
    const port = Number(new URL(baseUrl).port);
    const bodyBytes = 9 * 1024 * 1024;
    const head = (authorization: string) =>
      `PATCH /v1/inventory/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${bodyBytes}\r\n${authorization}`;
    const before = serverBytesRead();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        upload(port, head(i % 2 === 0 ? '' : 'Authorization: Bearer deny-anonymous\r\n'), bodyBytes),
      ),
    );
    for (const outcome of outcomes) expect([outcome.status, outcome.body]).toEqual([401, unauthorized]);
    // Each connection's bytes read: its head and what the socket took before the answer, never its 9 MB.
    expect(serverBytesRead() - before).toBeLessThan(30 * 1024 * 1024);
  }, 60_000);

  test('S1: a body declared over 10 MB is 413 before the authorizer and unread', async () => {
    const port = Number(new URL(baseUrl).port);
    const bodyBytes = 10 * 1024 * 1024 + 1;
    const outcome = await upload(
      port,
      `PATCH /v1/inventory/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer never-asked\r\nContent-Length: ${bodyBytes}\r\n`,
      bodyBytes,
    );
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(outcome.sent).toBeLessThan(bodyBytes);
    expect(await readFile(callsFile, 'utf8')).not.toContain('never-asked');
  });
});

describe('the TOKEN authorizer', () => {
  const calls = async () => (await readFile(callsFile, 'utf8')).split('\n').filter(Boolean);

  test('A4: throwing Unauthorized is 401', async () => {
    const answer = await send('GET', '/v1/inventory/echo', [['Authorization', 'Bearer unauthorized']]);
    expect([answer.status, answer.text]).toEqual([401, unauthorized]);
  });

  test.each([
    ['A6', 'slow'],
    ['A7', 'malformed'],
  ])(
    '%s: a %s authorizer is AUTHORIZER_CONFIGURATION_ERROR, 503',
    async (_row, token) => {
      const answer = await send('GET', '/v1/inventory/echo', [['Authorization', `Bearer ${token}`]]);
      expect([answer.status, answer.text]).toEqual([503, unavailable]);
      expect(answer.headers['x-amzn-errortype']).toBe('AuthorizerConfigurationException');
    },
    15_000,
  );

  test('A9: an Allow and a Deny are cached per token; the Deny stays 401', async () => {
    for (let i = 0; i < 3; i++) {
      expect(
        (await send('GET', '/v1/inventory/echo', [['Authorization', 'Bearer deny-cached']])).status,
      ).toBe(401);
      expect(
        (await send('GET', '/v1/inventory/echo', [['Authorization', 'Bearer allow-cached']])).status,
      ).toBe(200);
    }
    const made = await calls();
    expect(made.filter((token) => token === 'deny-cached')).toHaveLength(1);
    expect(made.filter((token) => token === 'allow-cached')).toHaveLength(1);
  });
});

describe('responses API Gateway writes', () => {
  test('G1: every response carries a request id and an API Gateway id; its own ones x-amzn-ErrorType', async () => {
    const ok = await send('GET', '/v1/inventory/echo', [allow]);
    const refused = await send('GET', '/v1/inventory/echo');
    for (const answer of [ok, refused]) {
      expect(answer.headers['x-amzn-requestid']).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers['x-amz-apigw-id']).toMatch(/^[A-Za-z0-9_-]{16}$/);
    }
    expect(ok.headers['x-amzn-errortype']).toBeUndefined();
    expect([refused.status, refused.text, refused.headers['x-amzn-errortype']]).toEqual([
      401,
      unauthorized,
      'UnauthorizedException',
    ]);
  });

  /** Writes `text` on a raw connection and returns everything the server sends until it closes. */
  function rawExchange(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(text));
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        received += chunk;
      });
      socket.on('end', () => resolve(received)).on('error', reject);
    });
  }

  const bodyOf = (raw: string) => raw.slice(raw.indexOf('\r\n\r\n') + 4);

  test.each([
    ['a bad method', 'BREW /v1/inventory/echo HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['a malformed request line', 'GET /v1/inventory/echo HTTP/9\r\nHost: localhost\r\n\r\n'],
    ['a header without a colon', 'GET /v1/inventory/echo HTTP/1.1\r\nHost: localhost\r\nbroken\r\n\r\n'],
  ])('G2: %s gets 400 with the Error body', async (_what, text) => {
    const raw = await rawExchange(text);
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(bodyOf(raw)).toBe(errorBody('invalid_request', 'malformed HTTP request', 400));
  });

  const request = (hostLines: string, version = '1.1') =>
    `GET /v1/inventory/echo HTTP/${version}\r\n${hostLines}Authorization: Bearer allow\r\nConnection: keep-alive\r\n\r\n`;

  test.each([
    ['an HTTP/1.1 request without Host', request('')],
    ['two Host headers', request('Host: localhost\r\nHost: localhost\r\n')],
    ['two different Host headers', request('Host: localhost\r\nHost: example.com\r\n')],
    ['an empty Host', request('Host: \r\n')],
    ['an empty Host in HTTP/1.0', request('Host:\r\n', '1.0')],
    ['a Host that is no host', request('Host: local host\r\n')],
    ['a Host with a path', request('Host: localhost/v1\r\n')],
  ])('G2: %s gets 400 with the Error body and closes the connection', async (_what, text) => {
    const raw = await rawExchange(text);
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toMatch(/\r\nConnection: close\r\n/i);
    expect(bodyOf(raw)).toBe(
      errorBody(
        'invalid_request',
        'malformed HTTP request: exactly one Host header with a valid host is required',
        400,
      ),
    );
  });

  test.each([
    ['a host and port', request('Host: localhost:3000\r\n')],
    ['an IPv6 literal', request('Host: [::1]:3000\r\n')],
    ['an HTTP/1.0 request without Host', request('', '1.0')],
  ])('G2: %s is served', async (_what, text) => {
    // Connection: close, so that the server ends the exchange after its answer.
    const raw = await rawExchange(text.replace('Connection: keep-alive', 'Connection: close'));
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  test('G2: headers past the HTTP parser limit get 413 with the Error body', async () => {
    const raw = await rawExchange(
      `GET /v1/inventory/echo HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(bodyOf(raw)).toBe(
      errorBody(
        'payload_too_large',
        'request too large: at most 6 MB of body and 10,240 bytes of headers',
        413,
      ),
    );
  });
});

// Last, so that the rest of the file runs while their requests, sent in beforeAll (slowRows), wait.
describe('time limits of slow functions', () => {
  test('S6: no answer within 29 s is INTEGRATION_TIMEOUT (503 here)', async () => {
    const { answer, elapsedMs } = await slowRows.integrationTimeout;
    expect([answer.status, answer.text]).toEqual([503, unavailable]);
    expect(elapsedMs).toBeGreaterThanOrEqual(29_000);
  }, 45_000);

  test('S13: a cold start of 3 s does not count against a Timeout of 2 s: the Init phase has its own 10 s', async () => {
    const { answer } = await slowRows.initWithinLimit;
    expect([answer.status, answer.text]).toEqual([200, '{"initialized":true}']);
  }, 20_000);

  test('S13: an Init phase past 10 s is run again within the Timeout: 500 with a Timeout of 2 s, 200 with 15 s', async () => {
    const [short, long] = await Promise.all([
      slowRows.initPastLimitShortTimeout,
      slowRows.initPastLimitLongTimeout,
    ]);
    expect([short.answer.status, short.answer.text]).toEqual([500, internal]);
    expect([long.answer.status, long.answer.text]).toEqual([200, '{"initialized":true}']);
    // The second Init phase (11 s) began after the first was stopped at 10 s.
    expect(long.elapsedMs).toBeGreaterThanOrEqual(21_000);
  }, 40_000);
});
