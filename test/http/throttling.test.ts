/**
 * Per-key throttling over HTTP (docs/contract.md "Authentication and authorization"): the local API
 * throttles each key on its own, as the deployed usage plan does (API key source AUTHORIZER), with the key's
 * own rate or the environment's default (infra/settings.ts `apiKeys.throttle`), and answers the THROTTLED
 * gateway response: 429 `too_many_requests` with the Error body and `Retry-After` (seconds). A throttled request
 * reaches no function.
 */
import { describe, expect, test } from 'vitest';
import { gatewayResponses } from '#infra/gateway-responses.ts';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { localEnvironment } from '#local/settings.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { type TestResponse, testApiSuite } from '#test/support/test-api.ts';

const petId = '5';
const api = testApiSuite({ inventory: [{ petId, quantity: 1, status: 'available' }] });

/** Stores a new key with every scope and, when given, its own throttle; returns the key. */
function newKey(name: string, throttle?: { rateLimit: number; burstLimit: number }): Promise<string> {
  return storeNewKey(api.keys, name, throttle);
}

function list(key: string): Promise<TestResponse> {
  return api.request('GET', '/inventory', { headers: { Authorization: `Bearer ${key}` } });
}

const throttledBody = {
  code: 'too_many_requests',
  message: 'too many requests; retry later',
  status: 429,
};

describe('two keys of 5 requests per second each', () => {
  test('a client hammering with key A gets 429s while key B in the same second all succeed', async () => {
    const fivePerSecond = { rateLimit: 5, burstLimit: 5 };
    const keyA = await newKey('hammer', fivePerSecond);
    const keyB = await newKey('neighbour', fivePerSecond);
    const start = Date.now();

    // Both clients at once: B's five requests are sent while A's forty are being served.
    const [hammered, neighbour] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, () => list(keyA))),
      Promise.all(Array.from({ length: 5 }, () => list(keyB))),
    ]);
    const elapsedSeconds = (Date.now() - start) / 1000;

    const passed = hammered.filter((r) => r.status === 200).length;
    // The burst, plus what the bucket refilled while the requests were served.
    expect(passed).toBeGreaterThanOrEqual(5);
    expect(passed).toBeLessThanOrEqual(5 + Math.ceil(elapsedSeconds * 5));
    for (const response of hammered.filter((r) => r.status !== 200)) {
      expect(response.status).toBe(429);
      expect(response.headers.get('content-type')).toBe('application/json');
      // At 5 requests per second a token is back within 200 ms: the least whole number of seconds, 1.
      expect(response.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(response.text)).toEqual(throttledBody);
    }
    expect(neighbour.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  test('a throttled PATCH reaches no function: the table is unchanged', async () => {
    // One request per 100 s: the second is throttled however slowly the first is served.
    const key = await newKey('writer', { rateLimit: 0.01, burstLimit: 1 });
    const patch = (quantity: number) =>
      api.request('PATCH', `/inventory/${petId}`, {
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ quantity }),
      });
    expect((await patch(2)).status).toBe(200);
    const before = await api.tableItems();

    const response = await patch(3);

    expect(response.status).toBe(429);
    expect(JSON.parse(response.text)).toEqual(throttledBody);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(90);
    expect(await api.tableItems()).toEqual(before);
  });
});

describe('Retry-After on 429: the whole seconds until the key has a token again, at least 1', () => {
  test('a key of one request every 4 s is told to wait 4 s (less the time gone), and passes after that wait', async () => {
    const key = await newKey('slow', { rateLimit: 0.25, burstLimit: 1 });
    const start = Date.now();
    expect((await list(key)).status).toBe(200);

    const throttled = await list(key);
    const elapsedSeconds = (Date.now() - start) / 1000;

    expect(throttled.status).toBe(429);
    expect(JSON.parse(throttled.text)).toEqual(throttledBody);
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeLessThanOrEqual(4);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, 4 - Math.ceil(elapsedSeconds)));
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await list(key)).status).toBe(200);
  });
});

describe('the default per-key throttle of the settings', () => {
  test('a key without its own rate gets the burst of infra/settings.ts apiKeys.throttle, then 429', async () => {
    const { rateLimit, burstLimit } = localEnvironment.apiKeys.throttle;
    const key = await newKey('default-rate');
    const start = Date.now();

    const responses = await Promise.all(Array.from({ length: burstLimit * 3 }, () => list(key)));
    const elapsedSeconds = (Date.now() - start) / 1000;

    const passed = responses.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(burstLimit);
    expect(passed).toBeLessThanOrEqual(burstLimit + Math.ceil(elapsedSeconds * rateLimit));
    expect(responses.filter((r) => r.status === 429).length).toBe(responses.length - passed);
  });

  test('the THROTTLED gateway response is the one the stack deploys', () => {
    expect(gatewayResponses.THROTTLED).toEqual(throttledBody);
  });
});

describe('order of checks: credentials before the rate', () => {
  test('an unknown key is 401 however often it is sent, never 429', async () => {
    const unknown = generateApiKey();
    const responses = await Promise.all(Array.from({ length: 30 }, () => list(unknown)));
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([401]));
  });
});
