import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { attemptDelivery, deliveryUserAgent } from '#lib/webhooks/delivery-attempt.ts';
import { newSigningSecret } from '#lib/webhooks/endpoint-store.ts';
import { guardedLookup } from '#lib/webhooks/url-guard.ts';
import { placedOrderChange, stockChange } from '#test/support/change-fixtures.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

let receiver: WebhookReceiver;
let other: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  other = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await other?.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.answer = { status: 204 };
  other.requests.length = 0;
});

const change = stockChange({
  sequence: 3,
  petId: '9007199254740993',
  reason: 'arrival',
  quantity: { from: 2, to: 7 },
});
const message = {
  eventId: 'inventory.9007199254740993.3',
  type: 'inventory.changed' as const,
  timestamp: change.occurredAt,
  data: change,
};
/** The exact payload: `petId` a JSON number digit for digit (2^53 + 1, which a JSON.parse number rounds). */
const expectedBody =
  '{"type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":{"sequence":3,"petId":9007199254740993,"occurredAt":"2026-11-26T09:30:00.123Z","reason":"arrival","quantity":{"from":2,"to":7},"status":{"from":"available","to":"available"},"keyId":"3f2a9c0d1b7e"}}';

/** The id members of a JSON text read at their source text (JSON.parse source text access), at any depth. */
function idsInText(text: string): string[] {
  const ids: string[] = [];
  JSON.parse(text, (key, value, context?: { source?: string }) => {
    if (['petId', 'orderId', 'id'].includes(key))
      ids.push(`${key}=${context?.source ?? JSON.stringify(value)}`);
    return value;
  });
  return ids;
}

/** One attempt to deliver {@link message} to `url`, signed with a new secret, under the local policy unless `options` say. */
function attemptTo(url: string, options: Partial<Parameters<typeof attemptDelivery>[1]> = {}) {
  return attemptDelivery(message, { url, secret: newSigningSecret(), policy: 'local', ...options });
}

describe('a delivery attempt', () => {
  test('POSTs {"type","timestamp","data"} with exactly the Standard Webhooks headers, and the signature verifies', async () => {
    const secret = newSigningSecret();
    const now = new Date('2026-11-26T09:30:05.900Z');

    const outcome = await attemptDelivery(message, {
      url: `${receiver.endpoint}/hooks/pet-store?x=1`,
      secret,
      policy: 'local',
      now,
    });

    expect(outcome).toStrictEqual({ delivered: true, status: 204 });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests as [(typeof receiver.requests)[0]];
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/pet-store?x=1');
    expect(request.body).toBe(expectedBody);
    const { 'webhook-signature': signature, ...headers } = request.headers;
    expect(headers).toStrictEqual({
      host: `127.0.0.1:${receiver.port}`,
      connection: 'close',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(expectedBody)),
      'user-agent': deliveryUserAgent,
      'webhook-id': 'inventory.9007199254740993.3',
      'webhook-timestamp': '1795685405',
    });
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // Verified as a receiver would, at the attempt's time (verify refuses timestamps 5 min away from now).
    const verifiedNow = Date.now;
    Date.now = () => now.getTime();
    try {
      expect(
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
      ).toStrictEqual(JSON.parse(expectedBody));
      expect(idsInText(request.body)).toStrictEqual(['petId=9007199254740993']);
      expect(() =>
        new Webhook(newSigningSecret()).verify(request.body, request.headers as Record<string, string>),
      ).toThrow('No matching signature found');
    } finally {
      Date.now = verifiedNow;
    }
  });

  test('a signature made now verifies with Webhook.verify at the current time', async () => {
    const secret = newSigningSecret();
    expect(await attemptDelivery(message, { url: receiver.endpoint, secret, policy: 'local' })).toStrictEqual(
      {
        delivered: true,
        status: 204,
      },
    );
    const [request] = receiver.requests as [(typeof receiver.requests)[0]];
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toStrictEqual(
      JSON.parse(expectedBody),
    );
  });

  test('order.changed: the payload writes the order ids digit for digit, and the receiver verifies that text', async () => {
    const secret = newSigningSecret();
    const change = placedOrderChange;

    const outcome = await attemptDelivery(
      {
        eventId: 'order.1795685400123000001.placed',
        type: 'order.changed',
        timestamp: change.occurredAt,
        data: change,
      },
      { url: receiver.endpoint, secret, policy: 'local' },
    );

    expect(outcome).toStrictEqual({ delivered: true, status: 204 });
    const [request, ...others] = receiver.requests;
    expect(others).toStrictEqual([]);
    const body =
      '{"type":"order.changed","timestamp":"2026-11-26T09:31:00.000Z","data":{"orderId":1795685400123000001,"occurredAt":"2026-11-26T09:31:00.000Z","status":{"from":null,"to":"placed"},"order":{"id":1795685400123000001,"petId":-9223372036854775808,"quantity":1,"status":"placed","complete":false}}}';
    expect(request?.body).toBe(body);
    expect(request?.headers['webhook-id']).toBe('order.1795685400123000001.placed');
    // The signature is over this exact text: the receiver verifies it and reads the ids from it digit for digit.
    const headers = request?.headers as Record<string, string>;
    expect(new Webhook(secret).verify(body, headers)).toStrictEqual(JSON.parse(body));
    expect(idsInText(body)).toStrictEqual([
      'orderId=1795685400123000001',
      'id=1795685400123000001',
      'petId=-9223372036854775808',
    ]);
    // The text with the ids rounded (as a JSON.parse number writes them back) is not what was signed.
    expect(() => new Webhook(secret).verify(JSON.stringify(JSON.parse(body)), headers)).toThrow(
      'No matching signature found',
    );
  });

  test.each([200, 201, 202, 299])('a %i is delivered', async (status) => {
    receiver.answer = { status };
    const outcome = await attemptTo(receiver.endpoint);
    expect(outcome).toStrictEqual({ delivered: true, status });
  });

  test.each([
    [500, 'HTTP 500'],
    [404, 'HTTP 404'],
    [429, 'HTTP 429'],
    [400, 'HTTP 400'],
  ])('a %i is a failure', async (status, error) => {
    receiver.answer = { status };
    const outcome = await attemptTo(receiver.endpoint);
    expect(outcome).toStrictEqual({ delivered: false, status, error });
  });

  test('a redirect is a failure and is not followed', async () => {
    receiver.answer = { status: 302, headers: { location: `${other.endpoint}/elsewhere` } };
    const outcome = await attemptTo(receiver.endpoint);
    expect(outcome).toStrictEqual({
      delivered: false,
      status: 302,
      error: 'HTTP 302: redirects are not followed',
    });
    // The marker: a request of the test's own to the redirect's target, after the attempt ended; a followed
    // redirect would have reached it first.
    expect((await fetch(`${other.endpoint}/marker`, { method: 'POST' })).status).toBe(204);
    expect(other.requests.map((request) => request.path)).toStrictEqual(['/marker']);
  });

  test('a receiver that stalls 12 s fails at the 10 s total timeout', { timeout: 20_000 }, async () => {
    receiver.answer = { stallMs: 12_000 };
    const started = performance.now();
    const outcome = await attemptTo(receiver.endpoint);
    const elapsed = performance.now() - started;
    expect(outcome).toStrictEqual({ delivered: false, timedOut: true, error: 'no response within 10 s' });
    expect(elapsed).toBeGreaterThanOrEqual(9_990);
    expect(elapsed).toBeLessThan(11_000);
    expect(receiver.requests).toHaveLength(1);
  });

  test('a connection refused is a failure with the error', async () => {
    const closed = await startWebhookReceiver();
    await closed.close();
    const outcome = await attemptTo(closed.endpoint);
    expect(outcome).toStrictEqual({
      delivered: false,
      error: `connect ECONNREFUSED 127.0.0.1:${closed.port}`,
    });
  });

  test('http://localhost:<port> is delivered under the local policy', async () => {
    const outcome = await attemptTo(`http://localhost:${receiver.port}/`);
    expect(outcome).toStrictEqual({ delivered: true, status: 204 });
    expect(receiver.requests).toHaveLength(1);
  });

  test('deployed (public-https), http://127.0.0.1 is refused without connecting', async () => {
    const outcome = await attemptTo(receiver.endpoint, { policy: 'public-https' });
    expect(outcome).toStrictEqual({
      delivered: false,
      error: `${receiver.endpoint}: webhook URLs must be https`,
    });
    expect(receiver.requests).toStrictEqual([]);
  });

  test('a host name that resolves to a refused address at delivery is refused by the connection lookup itself', async () => {
    // The host resolved to a public address when added; now its DNS answers the receiver's loopback address.
    const rebound = ((_host: string, _options: unknown, callback: (...args: unknown[]) => void) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as typeof import('node:dns').lookup;
    const outcome = await attemptTo(`http://rebound.example.com:${receiver.port}/`, {
      lookup: guardedLookup('local', rebound),
    });
    // Under `local` only http to 127.0.0.1, ::1 and localhost is allowed: the name is refused by its form.
    expect(outcome).toStrictEqual({
      delivered: false,
      error: `http://rebound.example.com:${receiver.port}/: webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)`,
    });

    const https = await attemptTo(`https://rebound.example.com:${receiver.port}/`, {
      policy: 'public-https',
      lookup: guardedLookup('public-https', rebound),
    });
    expect(https).toStrictEqual({
      delivered: false,
      error:
        'rebound.example.com resolves to a refused address: 127.0.0.1 is not a public address (loopback)',
    });
    expect(receiver.requests).toStrictEqual([]);
  });
});

test('a secret that is not base64 is a failed attempt, not a thrown error', async () => {
  const outcome = await attemptDelivery(message, {
    url: receiver.endpoint,
    secret: 'whsec_***',
    policy: 'local',
  });
  expect(outcome.delivered).toBe(false);
  expect(outcome).toMatchObject({ error: expect.stringMatching(/^cannot sign: /) });
  expect(receiver.requests).toStrictEqual([]);
});
