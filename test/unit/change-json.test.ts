import { expect, test } from 'vitest';
import { changeJson, exactNumbers } from '#lib/events/change-json.ts';
import { feedJson } from '#lib/events/event-feed.ts';
import { placedOrderChange, stockChange } from '#test/support/change-fixtures.ts';

const order = changeJson({ type: 'order.changed', data: placedOrderChange });
const stock = changeJson({
  type: 'inventory.changed',
  data: stockChange({
    sequence: 9007199254740991,
    petId: '9223372036854775807',
    reason: 'order_placed',
    quantity: { from: 2147483647, to: 2147483646 },
    orderId: '1795685400123000001',
  }),
});

test('changeJson writes every id digit for digit, as JSON numbers', () => {
  expect(order).toContain('"orderId":1795685400123000001');
  expect(order).toContain('"petId":-9223372036854775808');
  expect(stock).toContain('"petId":9223372036854775807');
});

test('a stored record (JSON.stringify text) read with exactNumbers is written back byte for byte, every number as stored', () => {
  for (const text of [
    order,
    stock,
    `{"a":[1e2,-0.5,12345678901234567890],"b":${JSON.stringify('é\n"x"\ud800')}}`,
  ]) {
    expect(JSON.stringify(JSON.parse(text, exactNumbers))).toBe(text);
  }
});

test("the feed's JSON is each event's id, type and timestamp, then its stored data as stored", () => {
  const events = [
    { id: 'order.1795685400123000001.placed', type: 'order.changed' as const, timestamp: 'T1', data: order },
    {
      id: 'inventory.9223372036854775807.9007199254740991',
      type: 'inventory.changed' as const,
      timestamp: 'T2',
      data: stock,
    },
  ];
  expect(feedJson(events)).toBe(
    `[{"id":"order.1795685400123000001.placed","type":"order.changed","timestamp":"T1","data":${order}},` +
      `{"id":"inventory.9223372036854775807.9007199254740991","type":"inventory.changed","timestamp":"T2","data":${stock}}]`,
  );
  expect(feedJson([])).toBe('[]');
});
