/**
 * Sizes, Lambda errors and time limits as a client of a served template sees them (behaviour.md S1-S13, L1;
 * row ids in the test names): the package's fixture API (support/api-fixture.ts, served by `startLocalAws`)
 * with this suite's routes and stand-in functions (testing/functions/), the request picking what each does.
 * Besides THROTTLED's static header, the API defines no gateway response: every refusal is AWS's default.
 */
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { upload } from '../testing/raw-upload.ts';
import { removeTemporaryDirs, temporaryDir } from '../testing/temporary-dirs.ts';
import {
  type ApiFixture,
  type ApiFixtureOptions,
  type FixtureRoute,
  standIn,
  startApiFixture,
} from './support/api-fixture.ts';

/**
 * The fixture API (api-fixture.ts) with this suite's routes, all behind the TOKEN authorizer, and the stage's
 * own throttle of 1 request per second (S8): `/actions/{action}` (GET, PATCH) runs `Actions` (Timeout 2 s);
 * `/patient/{action}` runs `Patient` (Timeout 60 s); `/keyed/{action}` runs `Actions` and requires an API key (a
 * usage plan of 1 per second, burst 2; its THROTTLED response a static `Retry-After: 60`); `/cold-within`,
 * `/cold-short`, `/cold-long` run functions whose Init phase takes 3 s, 11 s and 11 s under a Timeout of 2 s,
 * 2 s and 15 s; `/stream` runs the streaming stand-in in STREAM mode, `/stream-buffered` the same without it.
 * No other gateway response is defined: every other refusal is AWS's default.
 */
function limitsApi(files: { starts: string; release: string }): ApiFixtureOptions {
  const recorded = { LIMITS_STARTS: files.starts, LIMITS_RELEASE: files.release };
  const coldStart = (delayMs: number, timeoutSeconds: number) => ({
    module: standIn('slow-init-function'),
    timeoutSeconds,
    environment: { INIT_DELAY_MS: String(delayMs) },
  });
  const route = (method: string, path: string, fn: string, extra: Partial<FixtureRoute> = {}) => ({
    method,
    path,
    function: fn,
    authorized: true,
    ...extra,
  });
  return {
    routes: [
      route('GET', '/actions/{action}', 'Actions'),
      route('PATCH', '/actions/{action}', 'Actions'),
      route('GET', '/patient/{action}', 'Patient'),
      route('GET', '/keyed/{action}', 'Actions', { apiKeyRequired: true }),
      route('GET', '/cold-within', 'ColdWithin'),
      route('GET', '/cold-short', 'ColdShort'),
      route('GET', '/cold-long', 'ColdLong'),
      route('GET', '/stream', 'Streamer', { streaming: true }),
      route('GET', '/stream-buffered', 'Streamer'),
    ],
    functions: {
      Actions: { module: standIn('limits-function'), timeoutSeconds: 2, environment: recorded },
      Patient: { module: standIn('limits-function'), timeoutSeconds: 60, environment: recorded },
      ColdWithin: coldStart(3_000, 2),
      ColdShort: coldStart(11_000, 2),
      ColdLong: coldStart(11_000, 15),
      Streamer: { module: standIn('streaming-function'), timeoutSeconds: 10 },
    },
    gatewayResponses: { THROTTLED: { headers: { 'Retry-After': '60' } } },
    usagePlan: { rateLimit: 1, burstLimit: 2 },
    stageThrottle: { rateLimit: 1, burstLimit: 1 },
  };
}

/** A served fixture API with the files of its functions: the actions started, the file that releases `hold`. */
interface Served {
  fixture: ApiFixture;
  starts: () => Promise<string[]>;
  release: () => Promise<void>;
}

const running: ApiFixture[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((fixture) => fixture.close()));
  await removeTemporaryDirs();
});

/** Serves {@link limitsApi} (open at once). */
async function serve(): Promise<Served> {
  const dir = await temporaryDir('lambda-limits-');
  const files = { starts: join(dir, 'starts'), release: join(dir, 'release') };
  await writeFile(files.starts, '');
  const fixture = await startApiFixture(limitsApi(files));
  running.push(fixture);
  return {
    fixture,
    starts: async () => (await readFile(files.starts, 'utf8')).split('\n').filter(Boolean),
    release: () => writeFile(files.release, ''),
  };
}

/** AWS's default bodies of the gateway responses this suite meets. */
const defaults = {
  integrationFailure: [502, '{"message":"Internal server error"}'],
  integrationTimeout: [504, '{"message":"Endpoint request timed out"}'],
  tooLarge: [413, '{"message":"Request Too Long"}'],
  invalidApiKey: [403, '{"message":"Forbidden"}'],
} as const;

let api: Served;
beforeAll(async () => {
  api = await serve();
});

/** `method path` (under the stage) with `Authorization: Bearer <token>`; resolves with the fetch response. */
function call(path: string, init: RequestInit = {}, token = 'allow'): Promise<Response> {
  return fetch(`${api.fixture.baseUrl}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, ...init.headers },
  });
}

/** The status and body text of `response`. */
const answer = async (response: Response) => [response.status, await response.text()];

/** The body of one raw HTTP/1.1 answer (its head and body as received), its chunks joined when chunked. */
function rawBody(answer: string): string {
  const separator = answer.indexOf('\r\n\r\n');
  const body = answer.slice(separator + 4);
  if (!/\r\ntransfer-encoding: *chunked\r\n/i.test(answer.slice(0, separator + 2))) return body;
  let data = '';
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (lineEnd < 0 || !(size > 0)) return data;
    data += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

describe('sizes', () => {
  test('S1: a body declared over 10 MB is REQUEST_TOO_LARGE before the authorizer is asked, its body unread', async () => {
    const bodyBytes = 10 * 1024 * 1024 + 1;
    const outcome = await upload(
      api.fixture.port,
      `PATCH /v1/actions/s1-declared HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer allow-never-asked\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n`,
      bodyBytes,
    );
    expect([outcome.status, outcome.body]).toEqual(defaults.tooLarge);
    expect(outcome.sent).toBeLessThan(bodyBytes);
    expect(await api.fixture.authorizerCalls()).not.toContain('allow-never-asked');
    expect(await api.starts()).not.toContain('s1-declared');
  });

  test('S1: a chunked body past 10 MB is REQUEST_TOO_LARGE once the request is authorized; the function is not run', async () => {
    const socket = connect(api.fixture.port, '127.0.0.1');
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
    });
    const closed = once(socket, 'close');
    await once(socket, 'connect');
    socket.write(
      'PATCH /v1/actions/s1-chunked HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer allow-chunked\r\n' +
        'Transfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const frame = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ]);
    // 11 MB in 64 KB chunks, as fast as the server takes them, then the last chunk.
    for (let sent = 0; sent < 11 * 1024 * 1024 && !socket.destroyed; sent += chunk.length) {
      if (!socket.write(frame)) await Promise.race([once(socket, 'drain'), closed]);
    }
    socket.write('0\r\n\r\n');
    await vi.waitFor(() => expect(rawBody(received)).toMatch(/\}$/), { timeout: 10_000 });
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(rawBody(received)).toBe(defaults.tooLarge[1]);
    expect(await api.fixture.authorizerCalls()).toContain('allow-chunked');
    expect(await api.starts()).not.toContain('s1-chunked');
  });

  test('S2: an event over 6 MB is REQUEST_TOO_LARGE and never reaches the function; 5 MB does', async () => {
    const over = await call('/actions/s2-over', { method: 'PATCH', body: 'a'.repeat(6_500_000) });
    expect(await answer(over)).toEqual(defaults.tooLarge);
    expect(await api.starts()).not.toContain('s2-over');
    const under = await call('/actions/s2-under', { method: 'PATCH', body: 'a'.repeat(5_000_000) });
    expect(under.status).toBe(200);
    expect(await under.json()).toEqual({ pathParameters: { action: 's2-under' }, bodyLength: 5_000_000 });
  });
});

describe('function errors', () => {
  test.each([
    ['S3', 'a buffered result over 6 MB', 'huge'],
    ['S4', 'a function that throws', 'throw'],
    ['S5', 'a function past its timeout', 'slow'],
  ])(
    '%s: %s is the INTEGRATION_FAILURE response',
    async (_row, _what, action) => {
      const response = await call(`/actions/${action}`);
      expect(await answer(response)).toEqual(defaults.integrationFailure);
      expect(response.headers.get('x-amzn-errortype')).toBe('InternalServerErrorException');
    },
    15_000,
  );

  test.each([
    ['S5', 'a timeout', 'slow'],
    ['S4', 'a crash', 'crash'],
  ])(
    'S12 (%s): after %s the waiting invocation gets a fresh execution environment and succeeds',
    async (_row, _what, action) => {
      // The authorizer's answer cached first; then every environment of the pool (4) fails while a fifth
      // request waits for one of them.
      expect((await call('/actions/echo')).status).toBe(200);
      const startsOf = async () => (await api.starts()).filter((line) => line === action).length;
      const before = await startsOf();
      const failing = Array.from({ length: 4 }, () => call(`/actions/${action}`).then(answer));
      await vi.waitFor(async () => expect(await startsOf()).toBe(before + 4), {
        timeout: 10_000,
        interval: 20,
      });
      const next = await call('/actions/echo');
      expect(next.status).toBe(200);
      expect(await next.json()).toEqual({ pathParameters: { action: 'echo' }, bodyLength: 0 });
      for (const failed of await Promise.all(failing)) expect(failed).toEqual(defaults.integrationFailure);
    },
    15_000,
  );

  test("S7: invocations past a function's 4 environments wait for one: none is refused", async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('/actions/pause').then(answer)));
    for (const [status] of answers) expect(status).toBe(200);
    // At no time did more than 4 run at once: each start and each end is a line, in order.
    let runningNow = 0;
    let most = 0;
    for (const line of await api.starts()) {
      if (line === 'pause') most = Math.max(most, ++runningNow);
      if (line === 'pause done') runningNow--;
    }
    expect(most).toBeLessThanOrEqual(4);
  }, 20_000);

  test('S11: an Allow without a usage identifier on a method requiring a key is INVALID_API_KEY, the function not run', async () => {
    const refused = await call('/keyed/s11-refused', {}, 'nokey');
    expect(await answer(refused)).toEqual(defaults.invalidApiKey);
    expect(refused.headers.get('x-amzn-errortype')).toBe('ForbiddenException');
    expect(await api.starts()).not.toContain('s11-refused');
    const keyed = await call('/keyed/s11-keyed');
    expect(keyed.status).toBe(200);
  });
});

describe('throttling and streaming', () => {
  test("S10: a key over the usage plan's rate is THROTTLED after the authorizer, before the function, with the exact Retry-After", async () => {
    const action = 's10-plan';
    const responses = await Promise.all(Array.from({ length: 10 }, () => call(`/keyed/${action}`)));
    const throttled = responses.filter((response) => response.status === 429);
    expect(throttled.length).toBeGreaterThan(0);
    for (const response of throttled) {
      expect(await response.text()).toBe('{"message":"Too Many Requests"}');
      expect(response.headers.get('x-amzn-errortype')).toBe('TooManyRequestsException');
      // At 1 per second a token is back within 1 s: the bucket's exact wait, not the template's static 60.
      expect(response.headers.get('retry-after')).toBe('1');
    }
    const passed = responses.filter((response) => response.status === 200);
    for (const response of passed) await response.arrayBuffer();
    expect(passed.length + throttled.length).toBe(10);
    expect((await api.starts()).filter((line) => line === action)).toHaveLength(passed.length);
  });

  test("S10: a key whose authorizer context carries its own rate (1,000 per second) is not held to the usage plan's", async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call('/keyed/s10-roomy', {}, 'roomy').then(answer)),
    );
    for (const [status] of answers) expect(status).toBe(200);
  });

  test("S8: a stage's throttling settings are not applied: a burst past them is answered whole", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('/actions/s8').then(answer)));
    for (const [status] of answers) expect(status).toBe(200);
  });

  test("S9: a streamed response has the prelude's status and headers, its body chunked as written", async () => {
    const response = await call('/stream');
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('x-streamed')).toBe('yes');
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(await response.text()).toBe('first,second');
  });

  test('S9: a failure after the prelude cuts the connection: the body is incomplete', async () => {
    const response = await call('/stream?fail=after-prelude');
    expect(response.status).toBe(201);
    await expect(response.text()).rejects.toThrow();
  });

  test('S9: a streaming handler behind a method without STREAM is the INTEGRATION_FAILURE response', async () => {
    expect(await answer(await call('/stream-buffered'))).toEqual(defaults.integrationFailure);
  });
});

describe('time limits', () => {
  // S6 and the two S13 rows wait on timers of their own functions: side by side.
  test.concurrent('S6: no answer within 29 s is INTEGRATION_TIMEOUT', async () => {
    const started = Date.now();
    const response = await call('/patient/slow');
    expect(await answer(response)).toEqual(defaults.integrationTimeout);
    expect(Date.now() - started).toBeGreaterThanOrEqual(29_000);
  }, 45_000);

  test.concurrent('S13: a cold start of 3 s does not count against a Timeout of 2 s: the Init phase has its own 10 s', async () => {
    expect(await answer(await call('/cold-within'))).toEqual([200, '{"initialized":true}']);
  }, 20_000);

  test.concurrent('S13: an Init phase past 10 s is run again within the Timeout: INTEGRATION_FAILURE with a Timeout of 2 s, 200 with 15 s', async () => {
    const started = Date.now();
    const [short, long] = await Promise.all([
      call('/cold-short').then(answer),
      call('/cold-long').then(answer),
    ]);
    expect(short).toEqual(defaults.integrationFailure);
    expect(long).toEqual([200, '{"initialized":true}']);
    // The second Init phase (11 s) began after the first was stopped at 10 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(21_000);
  }, 40_000);
});

describe('close', () => {
  test('L1: a request arriving during the drain is answered 503 unrun when its function cannot end before the cut; the one in flight is answered', async () => {
    const drained = await serve();
    const socket = connect(drained.fixture.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    const ended = once(socket, 'end');
    await once(socket, 'connect');
    const get = (path: string, token: string) =>
      `GET /v1${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    // The first holds its function (Timeout 60 s) until released.
    socket.write(get('/patient/hold', 'allow'));
    await vi.waitFor(async () => expect(await drained.starts()).toContain('hold'), { timeout: 10_000 });
    const closed = drained.fixture.close();
    // The second arrives on the same connection once the drain has begun; its authorizer runs (a new token).
    socket.write(get('/patient/late', 'allow-late'));
    await vi.waitFor(async () => expect(await drained.fixture.authorizerCalls()).toContain('allow-late'), {
      timeout: 10_000,
    });
    await drained.release();
    await ended;
    await closed;
    running.splice(running.indexOf(drained.fixture), 1);
    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    // The first answer was promised before the drain: not the connection's last.
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answers[0]).not.toMatch(/\r\nConnection: close\r\n/i);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*Connection: close\r\n/);
    expect(JSON.parse(rawBody(answers[1] ?? ''))).toEqual({
      message: expect.any(String),
    });
    expect(await drained.starts()).not.toContain('late');
  }, 45_000);
});
