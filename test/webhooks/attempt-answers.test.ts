/**
 * What a delivery attempt makes of each answer (lib/webhooks/delivery-attempt.ts; docs/contract.md "History and
 * events": a 2xx delivers, a redirect is a failure not followed, a 429's or 503's `Retry-After` is honoured): the
 * status bounds and the header passed on, against a local receiver.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { attemptDelivery } from '#lib/webhooks/delivery-attempt.ts';
import { newSigningSecret } from '#lib/webhooks/endpoint.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

const message = {
  eventId: 'inventory_low_stock.7.1.2',
  type: 'inventory.low_stock' as const,
  timestamp: '2026-12-08T09:59:59Z',
  data: { petId: '7', quantity: 1, reorderPoint: 2, sequence: 1 },
};

/** The outcome of one attempt answered with `status` and `headers`. */
function answered(status: number, headers?: Record<string, string>) {
  receiver.answer = { status, ...(headers && { headers }) };
  return attemptDelivery(message, {
    url: `${receiver.endpoint}/hook`,
    secret: newSigningSecret(),
    policy: 'local',
  });
}

test.each([200, 204, 299])('%i delivers', async (status) => {
  expect(await answered(status)).toStrictEqual({ delivered: true, status });
});

test.each([300, 302, 399])('%i is a redirect, not followed', async (status) => {
  expect(await answered(status, { location: 'http://127.0.0.1:9/' })).toStrictEqual({
    delivered: false,
    status,
    error: `HTTP ${status}: redirects are not followed`,
  });
});

test('another status fails; its Retry-After is passed on, as the receiver wrote it, only when sent', async () => {
  expect(await answered(400)).toStrictEqual({ delivered: false, status: 400, error: 'HTTP 400' });
  expect(await answered(503, { 'Retry-After': '120' })).toStrictEqual({
    delivered: false,
    status: 503,
    error: 'HTTP 503',
    retryAfter: '120',
  });
  expect(await answered(429, { 'Retry-After': 'Wed, 09 Dec 2026 10:00:00 GMT' })).toStrictEqual({
    delivered: false,
    status: 429,
    error: 'HTTP 429',
    retryAfter: 'Wed, 09 Dec 2026 10:00:00 GMT',
  });
});
