/**
 * Change records on the event bus (lib/events/bus.ts `publishChanges`) and the ids and timestamps of their
 * events (lib/events/changes.ts): docs/architecture.md "Change records", docs/contract.md "History and events".
 * The bus is a recording EventBridge client: each PutEvents request as sent, answered as `answer` says.
 */
import type {
  EventBridgeClient,
  PutEventsCommand,
  PutEventsCommandOutput,
} from '@aws-sdk/client-eventbridge';
import { describe, expect, test } from 'vitest';
import { publishChanges } from '#lib/events/bus.ts';
import { changeJson } from '#lib/events/change-json.ts';
import { type ChangeEvent, changeEventId, eventTimestamp, wholeSeconds } from '#lib/events/changes.ts';
import { placedOrderChange, stockChange } from '#test/support/change-fixtures.ts';

/** A client recording each request's entries, answering each with `answer` (default: every entry accepted). */
function recordingBus(
  answer: (count: number) => Partial<PutEventsCommandOutput> = () => ({ FailedEntryCount: 0 }),
) {
  const requests: Record<string, unknown>[][] = [];
  const client = {
    send: async (command: PutEventsCommand) => {
      const entries = (command.input.Entries ?? []) as Record<string, unknown>[];
      requests.push(entries);
      return answer(entries.length);
    },
  } as unknown as EventBridgeClient;
  return { client, requests };
}

const stock = (sequence: number): ChangeEvent => ({
  type: 'inventory.changed',
  data: stockChange({ sequence, petId: '7', reason: 'adjustment', quantity: { from: 1, to: 2 } }),
});
const lowStock: ChangeEvent = {
  type: 'inventory.low_stock',
  data: { petId: '7', quantity: 2, reorderPoint: 5, sequence: 3 },
  timestamp: '2026-12-08T10:00:01.000Z',
};

describe('publishChanges', () => {
  test('puts the events in order, 10 a request, each with the bus, source, type and exact JSON', async () => {
    const bus = recordingBus();
    const events = Array.from({ length: 21 }, (_, n) => stock(n + 1));
    await publishChanges(bus.client, 'pet-store-bus', events);
    expect(bus.requests.map((entries) => entries.length)).toStrictEqual([10, 10, 1]);
    expect(bus.requests.flat()).toStrictEqual(
      events.map((event) => ({
        EventBusName: 'pet-store-bus',
        Source: 'pet-store',
        DetailType: 'inventory.changed',
        Detail: changeJson(event),
      })),
    );
  });

  test("a low-stock event travels with its timestamp as the bus event's time; an order change without one", async () => {
    const bus = recordingBus();
    const order: ChangeEvent = { type: 'order.changed', data: placedOrderChange };
    await publishChanges(bus.client, 'b', [lowStock, order]);
    expect(bus.requests).toStrictEqual([
      [
        {
          EventBusName: 'b',
          Source: 'pet-store',
          DetailType: 'inventory.low_stock',
          Detail: '{"petId":7,"quantity":2,"reorderPoint":5,"sequence":3}',
          Time: new Date('2026-12-08T10:00:01.000Z'),
        },
        { EventBusName: 'b', Source: 'pet-store', DetailType: 'order.changed', Detail: changeJson(order) },
      ],
    ]);
  });

  test('no events, no request', async () => {
    const bus = recordingBus();
    await publishChanges(bus.client, 'b', []);
    expect(bus.requests).toStrictEqual([]);
  });

  test('an entry refused fails the publication, naming the first error code; later requests are not sent', async () => {
    const bus = recordingBus((count) => ({
      FailedEntryCount: 2,
      Entries: [
        { EventId: 'e1' },
        { ErrorCode: 'ThrottlingException' },
        { ErrorCode: 'InternalFailure' },
      ].slice(0, count),
    }));
    const events = Array.from({ length: 12 }, (_, n) => stock(n + 1));
    await expect(publishChanges(bus.client, 'b', events)).rejects.toThrow(
      new Error('EventBridge refused 2 of 10 events (ThrottlingException)'),
    );
    expect(bus.requests).toHaveLength(1);
  });

  test('a refusal without entries says so', async () => {
    const bus = recordingBus(() => ({ FailedEntryCount: 1 }));
    await expect(publishChanges(bus.client, 'b', [stock(1)])).rejects.toThrow(
      new Error('EventBridge refused 1 of 1 events (no code)'),
    );
  });
});

describe('event ids and timestamps', () => {
  test('each type has its id; a low-stock event its own timestamp, the others their record time', () => {
    const change = stockChange({
      sequence: 4,
      petId: '7',
      reason: 'adjustment',
      quantity: { from: 1, to: 2 },
    });
    expect(changeEventId({ type: 'inventory.changed', data: change })).toBe(`inventory.${change.petId}.4`);
    expect(changeEventId({ type: 'order.changed', data: placedOrderChange })).toBe(
      `order.${placedOrderChange.orderId}.placed`,
    );
    expect(changeEventId(lowStock)).toBe('inventory_low_stock.7.3.5');
    expect(eventTimestamp(lowStock)).toBe('2026-12-08T10:00:01.000Z');
    expect(eventTimestamp({ type: 'inventory.changed', data: change })).toBe(change.occurredAt);
    expect(eventTimestamp({ type: 'order.changed', data: placedOrderChange })).toBe(
      placedOrderChange.occurredAt,
    );
  });

  test('wholeSeconds drops the milliseconds', () => {
    expect(wholeSeconds('2026-12-08T10:00:01.999Z')).toBe('2026-12-08T10:00:01.000Z');
  });
});
