/**
 * Change records as JSON and back (lib/events/change-json.ts, lib/events/changes.ts `withIdsAs`), the event
 * ids listEvents and redeliverWebhook take (lib/events/event-query.ts `isEventId`) and the feed's keys
 * (lib/events/event-logs.ts): docs/contract.md "History and events" and "Identifiers", docs/architecture.md
 * "The events feed".
 */
import { describe, expect, test } from 'vitest';
import { changeJson, exactIds, exactNumbers, historyJson } from '#lib/events/change-json.ts';
import type { ChangeEvent } from '#lib/events/changes.ts';
import { logOf, logsPerType, markerKey } from '#lib/events/event-logs.ts';
import { isEventId, parseAfter } from '#lib/events/event-query.ts';
import { placedOrderChange, stockChange } from '#test/support/change-fixtures.ts';

const sold = stockChange({
  sequence: 2,
  petId: '9223372036854775807',
  reason: 'order_placed',
  quantity: { from: 3, to: 1 },
  orderId: '1795685400123000001',
});
const { keyId: _key, ...adjusted } = stockChange({
  sequence: 1,
  petId: '7',
  reason: 'adjustment',
  quantity: { from: null, to: 3 },
});

describe('change records as JSON', () => {
  test("a pet's history: ids digit for digit, orderId and keyId only where the record has them", () => {
    expect(historyJson([sold, adjusted])).toBe(
      '[{"sequence":2,"petId":9223372036854775807,"occurredAt":"2026-11-26T09:30:00.123Z","reason":"order_placed",' +
        '"quantity":{"from":3,"to":1},"status":{"from":"available","to":"available"},"orderId":1795685400123000001,"keyId":"3f2a9c0d1b7e"},' +
        '{"sequence":1,"petId":7,"occurredAt":"2026-11-26T09:30:00.123Z","reason":"adjustment",' +
        '"quantity":{"from":null,"to":3},"status":{"from":"available","to":"available"}}]',
    );
    expect(changeJson({ type: 'inventory.changed', data: adjusted })).toBe(
      JSON.stringify(JSON.parse(historyJson([adjusted]))[0]),
    );
  });

  test("an order's change carries the key id only when it has one", () => {
    const order: ChangeEvent = { type: 'order.changed', data: placedOrderChange };
    expect(changeJson(order)).toBe(
      '{"orderId":1795685400123000001,"occurredAt":"2026-11-26T09:31:00.000Z","status":{"from":null,"to":"placed"},' +
        '"order":{"id":1795685400123000001,"petId":-9223372036854775808,"quantity":1,"status":"placed","complete":false}}',
    );
    const byKey = changeJson({
      type: 'order.changed',
      data: { ...placedOrderChange, keyId: 'ba7816bf8f01' },
    });
    expect(byKey.endsWith('"complete":false},"keyId":"ba7816bf8f01"}')).toBe(true);
  });

  test('exactIds reads the id members as their decimal text at any depth, every other value as JSON.parse does', () => {
    const text =
      '{"orderId":1795685400123000001,"sequence":9007199254740993,"order":{"id":9223372036854775807,"petId":-1,"quantity":2.50},"petIds":[1],"x":"7"}';
    expect(JSON.parse(text, exactIds)).toStrictEqual({
      orderId: '1795685400123000001',
      sequence: 9007199254740992,
      order: { id: '9223372036854775807', petId: '-1', quantity: 2.5 },
      petIds: [1],
      x: '7',
    });
    expect(JSON.parse('{"petId":"7","id":null}', exactIds)).toStrictEqual({ petId: '7', id: null });
  });

  test('exactNumbers keeps every number as written', () => {
    expect(JSON.stringify(JSON.parse('{"a":1.50,"b":[1e2,"1.50"]}', exactNumbers))).toBe(
      '{"a":1.50,"b":[1e2,"1.50"]}',
    );
  });
});

describe('event ids', () => {
  test.each([
    'inventory.7.1',
    'inventory.-9223372036854775808.9007199254740991',
    'order.5.placed',
    'order.9223372036854775807.cancelled',
    'inventory_low_stock.7.1.0',
    'inventory_low_stock.7.3.2147483647',
  ])('%s is one', (id) => {
    expect(isEventId(id)).toBe(true);
  });

  test.each([
    'inventory',
    'inventory.7',
    'inventory.7.1.2.3',
    'inventory.7.1.5',
    'inventory.07.1',
    'inventory.7.01',
    'inventory.7.1x',
    'inventory.7.9007199254740992',
    'inventory.7.0',
    'order.5.shipped',
    'order.5.placed.1',
    'orders.5.placed',
    'x.5.placed',
    'x.5.1',
    'inventory_low_stock.7.1',
    'inventory_low_stock.7.1.01',
    'inventory_low_stock.7.1.2147483648',
    'inventory_low_stock.7.1.1x',
    'inventory_low_stock.7.x.1',
  ])('%s is not one', (id) => {
    expect(isEventId(id)).toBe(false);
  });
});

describe('after', () => {
  test('absent starts at the beginning; an event id starts after that event', () => {
    expect(parseAfter(undefined)).toBeUndefined();
    expect(parseAfter('order.5.placed')).toStrictEqual({ eventId: 'order.5.placed' });
  });
});

describe("the feed's keys", () => {
  test("an id's marker is keyed id#<eventId>", () => {
    expect(markerKey('inventory.7.1')).toBe('id#inventory.7.1');
  });

  test("an order's event goes to an order log picked by its orderId, whatever its pet", () => {
    const order = (orderId: string, petId: string): ChangeEvent => ({
      type: 'order.changed',
      data: { ...placedOrderChange, orderId, order: { ...placedOrderChange.order, id: orderId, petId } },
    });
    const logs = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'].map((id) => logOf(order(id, '7')));
    for (const log of logs) expect(log).toBeGreaterThanOrEqual(logsPerType);
    for (const log of logs) expect(log).toBeLessThan(2 * logsPerType);
    expect(new Set(logs).size).toBeGreaterThan(1);
    expect(logOf(order('5', '8'))).toBe(logOf(order('5', '7')));
  });
});
