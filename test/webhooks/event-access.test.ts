/**
 * Least privilege of webhook endpoints (lib/webhooks/event-access.ts; docs/contract.md "History and events"): the
 * event types a key may read, and createWebhookEndpoint's 403 naming the scope a key lacks.
 */
import { describe, expect, test } from 'vitest';
import {
  endpointEventTypes,
  endpointEventTypesFor,
  missingScopes,
  readableEventTypes,
} from '#lib/webhooks/event-access.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

const inventoryRead = ['inventory:read'];
const ordersRead = ['orders:read'];
const bothReads = ['orders:read', 'inventory:write', 'inventory:read'];

describe('the event types a key reads', () => {
  test("in the contract's order, each with the scope it needs", () => {
    expect(endpointEventTypes).toStrictEqual(['inventory.changed', 'inventory.low_stock', 'order.changed']);
    expect(readableEventTypes(inventoryRead)).toStrictEqual(['inventory.changed', 'inventory.low_stock']);
    expect(readableEventTypes(ordersRead)).toStrictEqual(['order.changed']);
    expect(readableEventTypes(bothReads)).toStrictEqual(endpointEventTypes);
    expect(readableEventTypes(['inventory:write', 'events:read'])).toStrictEqual([]);
  });

  test("the scopes missing, once each, in the contract's order", () => {
    expect(missingScopes(['order.changed', 'inventory.changed', 'inventory.low_stock'], [])).toStrictEqual([
      'inventory:read',
      'orders:read',
    ]);
    expect(missingScopes(['order.changed', 'inventory.changed'], inventoryRead)).toStrictEqual([
      'orders:read',
    ]);
    expect(missingScopes(endpointEventTypes, bothReads)).toStrictEqual([]);
    expect(missingScopes([], [])).toStrictEqual([]);
  });
});

describe("a new endpoint's event types (createWebhookEndpoint)", () => {
  test('asked and readable: the asked types, a copy in their order', () => {
    const asked = ['order.changed', 'inventory.changed'] as const;
    const types = endpointEventTypesFor(asked, bothReads);
    expect(types).toStrictEqual(['order.changed', 'inventory.changed']);
    expect(types).not.toBe(asked);
  });

  test('none asked: every type the key reads', () => {
    expect(endpointEventTypesFor(undefined, inventoryRead)).toStrictEqual([
      'inventory.changed',
      'inventory.low_stock',
    ]);
    expect(endpointEventTypesFor(undefined, ordersRead)).toStrictEqual(['order.changed']);
  });

  test('an asked type the key cannot read: 403 naming the scope it lacks and the types that need it', () => {
    expect(
      thrownErrorBody(() => endpointEventTypesFor(['inventory.changed', 'order.changed'], inventoryRead)),
    ).toStrictEqual({
      code: 'forbidden',
      message: 'this API key lacks orders:read: order.changed needs orders:read',
      status: 403,
    });
    expect(
      thrownErrorBody(() =>
        endpointEventTypesFor(['inventory.low_stock', 'order.changed', 'inventory.changed'], ['events:read']),
      ),
    ).toStrictEqual({
      code: 'forbidden',
      message:
        'this API key lacks inventory:read and orders:read: inventory.low_stock needs inventory:read, order.changed needs orders:read, inventory.changed needs inventory:read',
      status: 403,
    });
  });

  test('none asked by a key that reads no type, or an empty list asked: 403 naming what each type needs', () => {
    const none = {
      code: 'forbidden',
      message:
        'this API key can read no event type: inventory.changed needs inventory:read, inventory.low_stock needs inventory:read, order.changed needs orders:read',
      status: 403,
    };
    expect(
      thrownErrorBody(() => endpointEventTypesFor(undefined, ['events:read', 'webhooks:manage'])),
    ).toStrictEqual(none);
    expect(thrownErrorBody(() => endpointEventTypesFor([], bothReads))).toStrictEqual(none);
  });
});
