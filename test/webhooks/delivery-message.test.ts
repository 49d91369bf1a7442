/**
 * The delivery queue's message and the request body a subscriber gets (lib/webhooks/delivery-message.ts,
 * test-event.ts, signing.ts; docs/contract.md "History and events": Standard Webhooks payload and headers).
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import {
  type DeliveryMessage,
  deliveryDataJson,
  deliveryMessageBody,
  parseDeliveryMessage,
  webhookPayload,
} from '#lib/webhooks/delivery-message.ts';
import { newSigningSecret } from '#lib/webhooks/endpoint.ts';
import { signatureHeaders } from '#lib/webhooks/signing.ts';
import { testDelivery } from '#lib/webhooks/test-event.ts';
import { placedOrderChange } from '#test/support/change-fixtures.ts';

/** An order event whose ids are past 2^53 (and the int64 minimum): written digit for digit. */
const order: DeliveryMessage = {
  endpointId: 'ws_AAAAAAAAAAAAAAAA',
  eventId: 'order.1795685400123000001.placed',
  type: 'order.changed',
  timestamp: '2026-11-26T09:31:00.000Z',
  data: placedOrderChange,
};
const orderData =
  '{"orderId":1795685400123000001,"occurredAt":"2026-11-26T09:31:00.000Z","status":{"from":null,"to":"placed"},"order":{"id":1795685400123000001,"petId":-9223372036854775808,"quantity":1,"status":"placed","complete":false}}';
const lowStock: DeliveryMessage = {
  endpointId: 'ws_BBBBBBBBBBBBBBBB',
  eventId: 'inventory_low_stock.42.7.5',
  type: 'inventory.low_stock',
  timestamp: '2026-11-26T09:31:00Z',
  data: { petId: '42', quantity: 3, reorderPoint: 5, sequence: 7 },
};
const now = new Date('2026-12-08T10:00:00.250Z');

describe('the message body', () => {
  test('written with its members in order, the ids exact; read back to the same message', () => {
    const moved = { ...order, priorAttempts: 1, notBefore: '2026-12-08T22:00:00.000Z' };
    const body = deliveryMessageBody(moved);
    expect(body).toBe(
      `{"subscriptionId":"ws_AAAAAAAAAAAAAAAA","eventId":"order.1795685400123000001.placed","type":"order.changed","timestamp":"2026-11-26T09:31:00.000Z","priorAttempts":1,"notBefore":"2026-12-08T22:00:00.000Z","data":${orderData}}`,
    );
    expect(parseDeliveryMessage(body)).toStrictEqual(moved);
    expect(parseDeliveryMessage(deliveryMessageBody(lowStock))).toStrictEqual(lowStock);
  });

  test('a test event: its data is {"endpointId"} alone', () => {
    const sent = {
      ...testDelivery('ws_CCCCCCCCCCCCCCCC', now),
      data: { endpointId: 'ws_CCCCCCCCCCCCCCCC', x: 1 },
    };
    expect(deliveryDataJson(sent)).toBe('{"endpointId":"ws_CCCCCCCCCCCCCCCC"}');
    expect(parseDeliveryMessage(deliveryMessageBody(sent)).data).toStrictEqual({
      endpointId: 'ws_CCCCCCCCCCCCCCCC',
    });
  });

  test('priorAttempts 0 and a notBefore are read; priorAttempts absent is left absent', () => {
    const body = deliveryMessageBody({ ...lowStock, priorAttempts: 0, notBefore: '2026-12-08T22:00:00Z' });
    expect(parseDeliveryMessage(body)).toStrictEqual({
      ...lowStock,
      priorAttempts: 0,
      notBefore: '2026-12-08T22:00:00Z',
    });
    expect(parseDeliveryMessage(deliveryMessageBody(lowStock))).not.toHaveProperty('priorAttempts');
  });

  const valid = JSON.parse(deliveryMessageBody(lowStock)) as Record<string, unknown>;
  test.each([
    ['null', 'null'],
    ['no subscriptionId', JSON.stringify({ ...valid, subscriptionId: undefined })],
    ['a number for eventId', JSON.stringify({ ...valid, eventId: 7 })],
    ['no timestamp', JSON.stringify({ ...valid, timestamp: undefined })],
    ['an unknown type', JSON.stringify({ ...valid, type: 'pet.changed' })],
    ['no data', JSON.stringify({ ...valid, data: undefined })],
    ['priorAttempts -1', JSON.stringify({ ...valid, priorAttempts: -1 })],
    ['priorAttempts 1.5', JSON.stringify({ ...valid, priorAttempts: 1.5 })],
    ['priorAttempts "1"', JSON.stringify({ ...valid, priorAttempts: '1' })],
    ['a notBefore that is no time', JSON.stringify({ ...valid, notBefore: 'tomorrow' })],
    ['a number for notBefore', JSON.stringify({ ...valid, notBefore: 1_765_000_000_000 })],
    ['a number for notBefore that Date.parse reads as a year', JSON.stringify({ ...valid, notBefore: 2026 })],
  ])('%s: not a delivery message', (_case, body) => {
    expect(() => parseDeliveryMessage(body)).toThrow(new Error('not a webhook delivery message'));
  });
});

describe('the request a subscriber gets', () => {
  test('the body is {"type","timestamp","data"}, the data the exact record', () => {
    expect(webhookPayload(order)).toBe(
      `{"type":"order.changed","timestamp":"2026-11-26T09:31:00.000Z","data":${orderData}}`,
    );
    expect(webhookPayload(lowStock)).toBe(
      '{"type":"inventory.low_stock","timestamp":"2026-11-26T09:31:00Z","data":{"petId":42,"quantity":3,"reorderPoint":5,"sequence":7}}',
    );
  });

  test('a test event: type webhook.test, its id test_ and 16 base64url characters, its data the endpoint id', () => {
    const first = testDelivery('ws_CCCCCCCCCCCCCCCC', now);
    expect(first).toStrictEqual({
      endpointId: 'ws_CCCCCCCCCCCCCCCC',
      eventId: expect.stringMatching(/^test_[A-Za-z0-9_-]{16}$/),
      type: 'webhook.test',
      timestamp: '2026-12-08T10:00:00.250Z',
      data: { endpointId: 'ws_CCCCCCCCCCCCCCCC' },
    });
    expect(testDelivery('ws_CCCCCCCCCCCCCCCC', now).eventId).not.toBe(first.eventId);
    expect(webhookPayload(first)).toBe(
      '{"type":"webhook.test","timestamp":"2026-12-08T10:00:00.250Z","data":{"endpointId":"ws_CCCCCCCCCCCCCCCC"}}',
    );
  });

  test('the headers: the event id, the whole seconds, one v1 signature per secret in their order', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const body = webhookPayload(order);
    const headers = signatureHeaders([current, previous], order.eventId, now, body);
    expect(headers['webhook-id']).toBe('order.1795685400123000001.placed');
    expect(headers['webhook-timestamp']).toBe('1796724000');
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    const at = new Date(1_796_724_000_000);
    expect(signatures).toStrictEqual([
      new Webhook(current).sign(order.eventId, at, body),
      new Webhook(previous).sign(order.eventId, at, body),
    ]);
    expect(signatureHeaders(current, order.eventId, now, body)).toStrictEqual({
      'webhook-id': order.eventId,
      'webhook-timestamp': '1796724000',
      'webhook-signature': signatures[0],
    });
  });
});
