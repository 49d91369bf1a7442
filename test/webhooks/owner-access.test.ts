/**
 * The fan-out's check of the keys behind endpoints and the fan-out itself, pure (lib/webhooks/owner-access.ts,
 * fan-out.ts; docs/contract.md "History and events": least privilege, an endpoint receives the changes committed
 * after it was created, each in the lane of its state).
 */
import { describe, expect, test } from 'vitest';
import type { ChangeEvent } from '#lib/events/changes.ts';
import type { DeliveryMessage } from '#lib/webhooks/delivery-message.ts';
import type { EndpointRoute } from '#lib/webhooks/endpoint.ts';
import { createdBefore, fanOut } from '#lib/webhooks/fan-out.ts';
import { type ChainAccess, chainAccess, checkedRoutes, refusalOf } from '#lib/webhooks/owner-access.ts';
import { stockChange } from '#test/support/change-fixtures.ts';

const now = new Date('2026-12-08T10:00:00.000Z');
/** A digest whose key id (its first 12 characters) is `keyId`. */
const digestOf = (keyId: string) => `${keyId}${'0'.repeat(52)}`;

describe("a rotation chain's access", () => {
  test('the live keys of a chain: the union of their scopes, in the contract order; a key without scopes holds all', () => {
    const access = chainAccess(
      [
        { keyDigest: digestOf('aaaaaaaaaaaa'), createdAt: '2026-12-01T00:00:00Z', scopes: ['orders:read'] },
        {
          keyDigest: digestOf('bbbbbbbbbbbb'),
          firstKeyId: 'aaaaaaaaaaaa',
          createdAt: '2026-12-02T00:00:00Z',
          scopes: ['events:read', 'inventory:read'],
        },
        {
          keyDigest: digestOf('cccccccccccc'),
          firstKeyId: 'aaaaaaaaaaaa',
          createdAt: '2026-12-03T00:00:00Z',
          scopes: ['webhooks:manage'],
          revokedAt: '2026-12-04T00:00:00Z',
        },
        { keyDigest: digestOf('dddddddddddd'), createdAt: '2026-12-01T00:00:00Z' },
      ],
      now,
    );
    expect([...access]).toStrictEqual([
      ['aaaaaaaaaaaa', { live: true, scopes: ['inventory:read', 'orders:read', 'events:read'] }],
      [
        'dddddddddddd',
        {
          live: true,
          scopes: [
            'inventory:read',
            'inventory:write',
            'orders:read',
            'orders:write',
            'events:read',
            'webhooks:manage',
          ],
        },
      ],
    ]);
  });

  test('a chain without a live key: revoked or expired after its newest key', () => {
    const access = chainAccess(
      [
        {
          keyDigest: digestOf('aaaaaaaaaaaa'),
          createdAt: '2026-12-01T00:00:00Z',
          revokedAt: '2026-12-02T00:00:00Z',
        },
        {
          keyDigest: digestOf('bbbbbbbbbbbb'),
          firstKeyId: 'aaaaaaaaaaaa',
          createdAt: '2026-12-02T00:00:00Z',
          expiresAt: '2026-12-08T10:00:00.000Z',
        },
        {
          keyDigest: digestOf('cccccccccccc'),
          firstKeyId: 'aaaaaaaaaaaa',
          createdAt: '2026-11-30T00:00:00Z',
          revokedAt: '2026-12-01T00:00:00Z',
        },
        {
          keyDigest: digestOf('dddddddddddd'),
          createdAt: '2026-12-01T00:00:00Z',
          expiresAt: '2026-12-02T00:00:00Z',
        },
        {
          keyDigest: digestOf('eeeeeeeeeeee'),
          firstKeyId: 'dddddddddddd',
          createdAt: '2026-12-03T00:00:00Z',
          revokedAt: '2026-12-04T00:00:00Z',
        },
      ],
      now,
    );
    expect(access.get('aaaaaaaaaaaa')).toStrictEqual({ live: false, reason: 'key_expired' });
    expect(access.get('dddddddddddd')).toStrictEqual({ live: false, reason: 'key_revoked' });
  });
});

describe('which endpoints may receive', () => {
  const access = new Map<string, ChainAccess>([
    ['aaaaaaaaaaaa', { live: true, scopes: ['inventory:read'] }],
    ['bbbbbbbbbbbb', { live: false, reason: 'key_expired' }],
  ]);
  const route = (endpointId: string, ownerKeyId: string | undefined, rest: Partial<EndpointRoute> = {}) =>
    ({
      endpointId,
      events: ['inventory.changed'],
      state: 'enabled',
      ...(ownerKeyId && { ownerKeyId }),
      ...rest,
    }) as EndpointRoute;

  test("the tool's endpoints always; a live chain's holding each type's scope; else why not", () => {
    expect(refusalOf(route('ws_1', undefined), new Map())).toBeUndefined();
    expect(refusalOf(route('ws_2', 'aaaaaaaaaaaa'), access)).toBeUndefined();
    expect(refusalOf(route('ws_3', 'aaaaaaaaaaaa', { events: ['order.changed'] }), access)).toBe(
      'scope_missing',
    );
    expect(refusalOf(route('ws_4', 'bbbbbbbbbbbb'), access)).toBe('key_expired');
    expect(refusalOf(route('ws_5', 'cccccccccccc'), access)).toBe('key_revoked');
  });

  test('the allowed routes are returned; each refused one not yet disabled is disabled once, with its reason, before', async () => {
    const disabled: [string, string, string][] = [];
    const routes = [
      route('ws_1', undefined),
      route('ws_2', 'aaaaaaaaaaaa'),
      route('ws_3', 'aaaaaaaaaaaa', { events: ['order.changed'] }),
      route('ws_4', 'bbbbbbbbbbbb', { state: 'isolated' }),
      route('ws_5', 'bbbbbbbbbbbb', { state: 'disabled' }),
    ];
    const allowed = await checkedRoutes(routes, access, async (refused, reason) => {
      await Promise.resolve();
      disabled.push([refused.endpointId, refused.ownerKeyId, reason]);
    });
    expect(allowed).toStrictEqual([routes[0], routes[1]]);
    expect(disabled).toStrictEqual([
      ['ws_3', 'aaaaaaaaaaaa', 'scope_missing'],
      ['ws_4', 'bbbbbbbbbbbb', 'key_expired'],
    ]);
  });
});

describe('the fan-out', () => {
  const change: ChangeEvent = {
    type: 'inventory.changed',
    data: stockChange({ sequence: 3, petId: '7', reason: 'order_placed', quantity: { from: 5, to: 3 } }),
  };
  const lowStock: ChangeEvent = {
    type: 'inventory.low_stock',
    data: { petId: '7', quantity: 1, reorderPoint: 2, sequence: 3 },
    timestamp: '2026-11-26T09:30:00Z',
  };

  test('an endpoint takes the changes committed at or after its creation; a low-stock event in whole seconds', () => {
    expect(createdBefore({ createdAt: '2026-11-26T09:30:00.123Z' }, change)).toBe(true);
    expect(createdBefore({ createdAt: '2026-11-26T09:30:00.124Z' }, change)).toBe(false);
    expect(createdBefore({}, change)).toBe(true);
    expect(createdBefore({ createdAt: '2026-11-26T09:30:00.999Z' }, lowStock)).toBe(true);
    expect(createdBefore({ createdAt: '2026-11-26T09:30:01.000Z' }, lowStock)).toBe(false);
  });

  test('one message per endpoint taking the type and existing then; enabled to the fast lane, others to the slow', async () => {
    const sent: Record<'fast' | 'slow', DeliveryMessage[][]> = { fast: [], slow: [] };
    const lanes = {
      fast: { send: async (messages: DeliveryMessage[]) => void sent.fast.push(messages) },
      slow: { send: async (messages: DeliveryMessage[]) => void sent.slow.push(messages) },
    };
    const endpoint = (endpointId: string, rest: Partial<EndpointRoute>) =>
      ({ endpointId, events: ['inventory.changed'], state: 'enabled', ...rest }) as EndpointRoute;
    await fanOut(
      change,
      [
        endpoint('ws_1', {}),
        endpoint('ws_2', { state: 'isolated' }),
        endpoint('ws_3', { state: 'disabled' }),
        endpoint('ws_4', { events: ['order.changed'] }),
        endpoint('ws_5', { createdAt: '2026-11-26T09:31:00.000Z' }),
      ],
      lanes,
    );
    const message = (endpointId: string) => ({
      endpointId,
      eventId: 'inventory.7.3',
      type: 'inventory.changed',
      timestamp: '2026-11-26T09:30:00.123Z',
      data: change.data,
    });
    expect(sent).toStrictEqual({ fast: [[message('ws_1')]], slow: [[message('ws_2'), message('ws_3')]] });
  });

  test('a lane with no message is not sent to', async () => {
    const sent: string[] = [];
    const lanes = {
      fast: { send: async () => void sent.push('fast') },
      slow: { send: async () => void sent.push('slow') },
    };
    await fanOut(change, [{ endpointId: 'ws_1', events: ['inventory.changed'], state: 'isolated' }], lanes);
    await fanOut(change, [{ endpointId: 'ws_2', events: ['inventory.changed'], state: 'enabled' }], lanes);
    await fanOut(change, [], lanes);
    expect(sent).toStrictEqual(['slow', 'fast']);
  });
});
