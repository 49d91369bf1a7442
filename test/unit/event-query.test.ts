/**
 * listEvents' `after` and `type` (lib/events/event-query.ts) and the feed's positions (lib/events/event-logs.ts,
 * event-feed.ts `positionsAfter`): docs/contract.md "History and events", docs/architecture.md "The events feed".
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { ChangeEvent } from '#lib/events/changes.ts';
import { positionsAfter } from '#lib/events/event-feed.ts';
import {
  expiresAtOf,
  logCount,
  logKey,
  logOf,
  logsOf,
  oldestKept,
  retentionMs,
} from '#lib/events/event-logs.ts';
import { eventsCursor, parseAfter, parseEventType } from '#lib/events/event-query.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

/** The Error body `run` throws (an HttpError), or undefined when it does not throw. */
const errorOf = thrownErrorBody;

const afterRule = {
  code: 'invalid_request',
  message:
    'after must be an event id (inventory.<petId>.<sequence>, order.<orderId>.<status> or inventory_low_stock.<petId>.<sequence>.<reorderPoint>) or the cursor of a Link header',
  status: 400,
};

/** A position vector: one non-negative safe integer per log. */
const positions = fc.array(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), {
  minLength: logCount,
  maxLength: logCount,
});

describe('the cursor', () => {
  test('carries every vector of positions and back, exactly', () => {
    fc.assert(
      fc.property(positions, (vector) => {
        expect(parseAfter(eventsCursor(vector))).toStrictEqual({ positions: vector });
      }),
      { numRuns: 1000 },
    );
    expect(eventsCursor(Array(logCount).fill(0))).toBe(
      'MC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjA',
    );
  });

  test('a cursor written before inventory.low_stock (16 logs) continues there: its low-stock logs from their start', () => {
    const earlier = Array.from({ length: 16 }, (_, log) => 1_764_000_000_000_000 + log);
    expect(parseAfter(eventsCursor(earlier))).toStrictEqual({ positions: [...earlier, ...Array(8).fill(0)] });
  });

  test('a cursor cut, padded, of another alphabet or length, or with positions out of range is 400', () => {
    const good = eventsCursor(Array.from({ length: logCount }, (_, log) => 1_764_000_000_000_000 + log));
    const bad = [
      good.slice(0, -1),
      `${good}A`,
      `${good}=`,
      good.replace(/^./, '+'),
      eventsCursor(Array(logCount - 1).fill(0)),
      eventsCursor(Array(logCount + 1).fill(0)),
      Buffer.from(Array(logCount).fill('00').join('.')).toString('base64url'),
      Buffer.from(Array(logCount).fill('-1').join('.')).toString('base64url'),
      Buffer.from(Array(logCount).fill('2gosa7pa2gw').join('.')).toString('base64url'),
      Buffer.from(Array(logCount).fill('A').join('.')).toString('base64url'),
      '',
      'not a cursor',
      'x'.repeat(100_000),
    ];
    for (const text of bad)
      expect(
        errorOf(() => parseAfter(text)),
        text.slice(0, 80),
      ).toStrictEqual(afterRule);
  });

  test('an arbitrary text without a dot is 400 unless the service wrote it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        fc.pre(!text.includes('.'));
        const error = errorOf(() => parseAfter(text));
        if (error === undefined)
          expect(eventsCursor((parseAfter(text) as { positions: number[] }).positions)).toBe(text);
        else expect(error).toStrictEqual(afterRule);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('after=<event id>', () => {
  test('takes the ids the service writes, int64 ids digit for digit', () => {
    for (const id of [
      'inventory.7.1',
      'inventory.-9223372036854775808.9007199254740991',
      'inventory.9223372036854775807.3',
      'order.7529104386949123.placed',
      'order.1.approved',
      'order.9223372036854775807.delivered',
      'order.5.cancelled',
      'inventory_low_stock.7.3.0',
      'inventory_low_stock.-9223372036854775808.9007199254740991.2147483647',
    ]) {
      expect(parseAfter(id)).toStrictEqual({ eventId: id });
    }
  });

  test('any other text with a dot is 400', () => {
    for (const id of [
      'inventory.7.0',
      'inventory.07.1',
      'inventory.+7.1',
      'inventory.7.01',
      'inventory.7.9007199254740992',
      'inventory.9223372036854775808.1',
      'inventory.7',
      'inventory.7.1.1',
      'inventory..1',
      'order.7.shipped',
      'order.7.Placed',
      'pet.7.1',
      'inventory_low_stock.7.3',
      'inventory_low_stock.7.3.2147483648',
      'inventory_low_stock.7.3.05',
      'inventory_low_stock.7.0.5',
      '.',
      `inventory.${'1'.repeat(100_000)}.1`,
    ]) {
      expect(
        errorOf(() => parseAfter(id)),
        id.slice(0, 80),
      ).toStrictEqual(afterRule);
    }
  });

  test('continues in the feed order (position, log): after its position in its log and those before, at it in those after', () => {
    const position = 1_764_000_000_123_004;
    const after = positionsAfter({ log: 5, position });
    expect(after).toHaveLength(logCount);
    after.forEach((start, log) => {
      expect(start).toBe(log <= 5 ? position : position - 1);
    });
  });
});

describe('type', () => {
  test('absent is every type; each type alone; anything else is 400', () => {
    expect(parseEventType(undefined)).toStrictEqual([
      'inventory.changed',
      'order.changed',
      'inventory.low_stock',
    ]);
    expect(parseEventType('inventory.low_stock')).toStrictEqual(['inventory.low_stock']);
    expect(parseEventType('inventory.changed')).toStrictEqual(['inventory.changed']);
    expect(parseEventType('order.changed')).toStrictEqual(['order.changed']);
    for (const text of [
      '',
      'inventory',
      'Inventory.changed',
      'order.changed,inventory.changed',
      'constructor',
    ]) {
      expect(errorOf(() => parseEventType(text))).toStrictEqual({
        code: 'invalid_request',
        message: 'type must be one of inventory.changed, order.changed, inventory.low_stock',
        status: 400,
      });
    }
  });
});

describe('the logs', () => {
  const inventoryEvent = (petId: string): ChangeEvent => ({
    type: 'inventory.changed',
    data: {
      sequence: 1,
      petId,
      occurredAt: '2026-11-27T00:00:00.000Z',
      reason: 'created',
      quantity: { from: null, to: 0 },
      status: { from: null, to: 'available' },
    },
  });

  test("a pet's events stay in one inventory log; 10,000 consecutive pets spread evenly over the 8", () => {
    const counts = Array(logCount).fill(0);
    for (let petId = 1; petId <= 10_000; petId++) counts[logOf(inventoryEvent(String(petId)))]++;
    expect(counts.slice(8)).toStrictEqual(Array(16).fill(0));
    for (const count of counts.slice(0, 8)) expect(Math.abs(count - 1250)).toBeLessThan(150);
    expect(logOf(inventoryEvent('42'))).toBe(logOf({ ...inventoryEvent('42') }));
    expect(logsOf(['order.changed'])).toStrictEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(logsOf(['inventory.low_stock'])).toStrictEqual([16, 17, 18, 19, 20, 21, 22, 23]);
    expect([logKey(0), logKey(7), logKey(8), logKey(15), logKey(16)]).toStrictEqual([
      'inventory.changed#0',
      'inventory.changed#7',
      'order.changed#0',
      'order.changed#7',
      'inventory.low_stock#0',
    ]);
  });

  test('an event is kept for 30 days after its append, to the millisecond; its TTL is the second after', () => {
    const appendedAt = 1_764_000_000_123;
    const position = appendedAt * 1000 + 7;
    expect(position >= oldestKept(appendedAt + retentionMs - 1)).toBe(true);
    expect(position >= oldestKept(appendedAt + retentionMs)).toBe(false);
    expect(expiresAtOf(position)).toBe(Math.ceil((appendedAt + retentionMs) / 1000));
  });
});
