/**
 * redeliverWebhook's body and the delivery it sends (lib/webhooks/redelivery.ts; docs/contract.md "History and
 * events": what an endpoint's owner sees and steers; docs/architecture.md "Redelivery").
 */
import { describe, expect, test } from 'vitest';
import { changeJson } from '#lib/events/change-json.ts';
import type { FeedEvent } from '#lib/events/event-feed.ts';
import { deliveryMessageBody } from '#lib/webhooks/delivery-message.ts';
import { parseRedelivery, redeliveryOf } from '#lib/webhooks/redelivery.ts';
import { placedOrderChange } from '#test/support/change-fixtures.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

const notAnObject = {
  code: 'invalid_request',
  message: 'request body must be a JSON object such as {"eventId": "inventory.7532043913479288511.1"}',
  status: 400,
};
const notAnEventId = {
  code: 'invalid_request',
  message:
    'eventId must be the id of an event of the events list: inventory.<petId>.<sequence>, order.<orderId>.<status> or inventory_low_stock.<petId>.<sequence>.<reorderPoint> (a test event is not redelivered: send another)',
  status: 400,
};

describe('the body', () => {
  test('an object whose only member is an event id: that id', () => {
    for (const eventId of [
      'inventory.7532043913479288511.1',
      'order.1795685400123000001.placed',
      'inventory_low_stock.42.7.5',
    ]) {
      expect(parseRedelivery({ eventId })).toBe(eventId);
    }
  });

  test.each([null, [], ['inventory.7.1'], 'inventory.7.1', 7])('%j is not an object: 400', (body) => {
    expect(thrownErrorBody(() => parseRedelivery(body))).toStrictEqual(notAnObject);
  });

  test('another member: 400 naming it', () => {
    expect(thrownErrorBody(() => parseRedelivery({ eventId: 'inventory.7.1', force: true }))).toStrictEqual({
      code: 'invalid_request',
      message: 'a redelivery may only contain eventId; not allowed: "force"',
      status: 400,
    });
  });

  test.each([{}, { eventId: 7 }, { eventId: 'test_AAAAAAAAAAAAAAAA' }, { eventId: 'inventory.7' }])(
    '%j names no event of the feed: 400',
    (body) => {
      expect(thrownErrorBody(() => parseRedelivery(body))).toStrictEqual(notAnEventId);
    },
  );
});

describe('the delivery sent again', () => {
  const endpointId = 'ws_AAAAAAAAAAAAAAAA';
  /** An order event whose ids are past 2^53, as the feed stores its data: the text keeps them digit for digit. */
  const data = changeJson({ type: 'order.changed', data: placedOrderChange });
  const event: FeedEvent = {
    id: 'order.1795685400123000001.placed',
    type: 'order.changed',
    timestamp: '2026-11-26T09:31:00.000Z',
    data,
  };
  const endpoint = { events: ['order.changed' as const], createdAt: '2026-11-26T09:31:00.000Z' };
  const granted = ['orders:read'];

  test("the fan-out's id, type, timestamp and data, the data's text the same byte for byte", () => {
    const message = redeliveryOf(endpointId, endpoint, event, granted);
    expect(message).toMatchObject({
      endpointId,
      eventId: event.id,
      type: 'order.changed',
      timestamp: event.timestamp,
    });
    expect(Object.keys(message ?? {})).toStrictEqual(['endpointId', 'eventId', 'type', 'timestamp', 'data']);
    expect(deliveryMessageBody(message as NonNullable<typeof message>)).toBe(
      `{"subscriptionId":"${endpointId}","eventId":"${event.id}","type":"order.changed","timestamp":"${event.timestamp}","data":${data}}`,
    );
  });

  test('an endpoint stored without its creation time was sent every event it takes', () => {
    expect(redeliveryOf(endpointId, { events: ['order.changed'] }, event, granted)).toMatchObject({
      eventId: event.id,
    });
  });

  test('none when the endpoint does not take the type, its key cannot read it, or it was created after the change', () => {
    expect(
      redeliveryOf(endpointId, { ...endpoint, events: ['inventory.changed'] }, event, granted),
    ).toBeUndefined();
    expect(redeliveryOf(endpointId, endpoint, event, ['inventory:read', 'events:read'])).toBeUndefined();
    const later = { ...endpoint, createdAt: '2026-11-26T09:31:00.001Z' };
    expect(redeliveryOf(endpointId, later, event, granted)).toBeUndefined();
  });
});
