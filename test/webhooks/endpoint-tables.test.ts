/**
 * The endpoints and failures tables on an embedded DynamoDB (lib/webhooks/endpoint.ts, endpoint-store.ts,
 * key-endpoints.ts `removeEndpoint`, failures.ts; docs/architecture.md "Events and webhooks": the lanes and the breaker; docs/contract.md "History
 * and events": rotated secrets overlap 24 hours): what each operation leaves in the table.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newEndpoint, signingSecrets } from '#lib/webhooks/endpoint.ts';
import {
  addEndpoint,
  disableEndpoint,
  disableForKey,
  enableEndpoint,
  endpointHealth,
  endpointReader,
  endpointRoutes,
  listEndpoints,
} from '#lib/webhooks/endpoint-store.ts';
import { failureStore, failureWriter, type WebhookFailure } from '#lib/webhooks/failures.ts';
import { removeEndpoint } from '#lib/webhooks/key-endpoints.ts';
import { placedOrderChange } from '#test/support/change-fixtures.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

const table = testTableNames.webhookEndpoints;
let db: TestStore;

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
});
afterAll(() => db?.close());

const now = new Date('2026-12-08T10:00:00.000Z');
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Stores the endpoint `id` as the tool and the API store it, with these attributes besides (undefined: none). */
async function putEndpoint(id: string, rest: Record<string, unknown> = {}) {
  await db.client.send(
    new PutItemCommand({
      TableName: table,
      Item: marshall(
        {
          subscriptionId: id,
          url: 'https://hooks.example.com/',
          events: ['inventory.changed'],
          secret,
          createdAt: '2026-12-01T00:00:00.000Z',
          state: 'enabled',
          ...rest,
        },
        { removeUndefinedValues: true },
      ),
    }),
  );
}

/** The stored item of the endpoint `id` (raw attribute values), or undefined. */
async function stored(id: string) {
  return (await scanTable(db.client, table)).find((item) => item.subscriptionId?.S === id);
}

describe('the endpoints table', () => {
  test('a new endpoint: enabled, a fresh id and secret, its events copied, its owner when given', () => {
    const events = ['order.changed'] as const;
    const made = newEndpoint('https://hooks.example.com/', events, now, 'aaaaaaaaaaaa');
    expect(made).toStrictEqual({
      endpointId: expect.stringMatching(/^ws_[A-Za-z0-9_-]{16}$/),
      url: 'https://hooks.example.com/',
      events: ['order.changed'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      createdAt: '2026-12-08T10:00:00.000Z',
      state: 'enabled',
      ownerKeyId: 'aaaaaaaaaaaa',
    });
    expect(made.events).not.toBe(events);
    expect(newEndpoint('https://hooks.example.com/', events, now)).not.toHaveProperty('ownerKeyId');
    expect(newEndpoint('https://hooks.example.com/', events, now).endpointId).not.toBe(made.endpointId);
  });

  test('add, get, list and remove: the item stored under subscriptionId, read back whole', async () => {
    const reader = endpointReader(db.client, table);
    const names = { endpoints: table, owners: testTableNames.webhookEndpointOwners };
    const added = await addEndpoint(
      db.client,
      table,
      'https://hooks.example.com/a',
      ['inventory.changed', 'order.changed'],
      now,
    );
    expect(await reader.get(added.endpointId)).toStrictEqual(added);
    expect((await stored(added.endpointId))?.subscriptionId).toStrictEqual({ S: added.endpointId });
    expect(
      (await listEndpoints(db.client, table)).find((e) => e.endpointId === added.endpointId),
    ).toStrictEqual(added);
    expect(await removeEndpoint(db.client, names, added.endpointId)).toBe(true);
    expect(await removeEndpoint(db.client, names, added.endpointId)).toBe(false);
    expect(await reader.get(added.endpointId)).toBeUndefined();
  });

  test('an item stored before states, with every optional attribute, is read with each of them', async () => {
    await putEndpoint('ws_OLD0000000000001', {
      state: undefined,
      failingSince: '2026-12-02T00:00:00.000Z',
      disabledAt: '2026-12-07T00:00:00.000Z',
      disabledReason: 'operator',
      ownerKeyId: 'aaaaaaaaaaaa',
      previousSecret: 'whsec_old',
      previousSecretExpiresAt: '2026-12-09T00:00:00.000Z',
    });
    expect(await endpointReader(db.client, table).get('ws_OLD0000000000001')).toStrictEqual({
      endpointId: 'ws_OLD0000000000001',
      url: 'https://hooks.example.com/',
      events: ['inventory.changed'],
      secret,
      createdAt: '2026-12-01T00:00:00.000Z',
      state: 'enabled',
      failingSince: '2026-12-02T00:00:00.000Z',
      disabledAt: '2026-12-07T00:00:00.000Z',
      disabledReason: 'operator',
      ownerKeyId: 'aaaaaaaaaaaa',
      previousSecret: 'whsec_old',
      previousSecretExpiresAt: '2026-12-09T00:00:00.000Z',
    });
  });

  test("the fan-out's routes: id, events, state, owner and creation time, never a secret", async () => {
    await putEndpoint('ws_ROUTE0000000001', { state: 'isolated', ownerKeyId: 'bbbbbbbbbbbb' });
    await putEndpoint('ws_ROUTE0000000002', { state: undefined, createdAt: undefined });
    const routes = await endpointRoutes(db.client, table).list();
    expect(routes.find((r) => r.endpointId === 'ws_ROUTE0000000001')).toStrictEqual({
      endpointId: 'ws_ROUTE0000000001',
      events: ['inventory.changed'],
      state: 'isolated',
      ownerKeyId: 'bbbbbbbbbbbb',
      createdAt: '2026-12-01T00:00:00.000Z',
    });
    expect(routes.find((r) => r.endpointId === 'ws_ROUTE0000000002')).toStrictEqual({
      endpointId: 'ws_ROUTE0000000002',
      events: ['inventory.changed'],
      state: 'enabled',
    });
  });

  test('the secrets a delivery is signed with: the previous one too until it expires', () => {
    const rotated = {
      secret,
      previousSecret: 'whsec_old',
      previousSecretExpiresAt: '2026-12-08T10:00:00.001Z',
    };
    expect(signingSecrets(rotated, now)).toStrictEqual([secret, 'whsec_old']);
    expect(
      signingSecrets({ ...rotated, previousSecretExpiresAt: '2026-12-08T10:00:00.000Z' }, now),
    ).toStrictEqual([secret]);
    expect(signingSecrets({ secret, previousSecret: 'whsec_old' }, now)).toStrictEqual([secret]);
    expect(signingSecrets({ secret }, now)).toStrictEqual([secret]);
  });
});

describe("an endpoint's state", () => {
  const health = () => endpointHealth(db.client, table);

  test('a cut attempt isolates it without a failing period; a failure starts one, kept by later failures', async () => {
    await putEndpoint('ws_HEALTH000000001');
    await health().isolate('ws_HEALTH000000001');
    expect(await stored('ws_HEALTH000000001')).toMatchObject({ state: { S: 'isolated' } });
    expect(await stored('ws_HEALTH000000001')).not.toHaveProperty('failingSince');
    await health().isolate('ws_HEALTH000000001', now);
    await health().isolate('ws_HEALTH000000001', new Date(now.getTime() + 60_000));
    expect(await stored('ws_HEALTH000000001')).toMatchObject({
      state: { S: 'isolated' },
      failingSince: { S: '2026-12-08T10:00:00.000Z' },
    });
  });

  test('a delivery ends the failing period; enabled again only when quick', async () => {
    await putEndpoint('ws_HEALTH000000002', { state: 'isolated', failingSince: '2026-12-08T09:00:00.000Z' });
    await health().delivered('ws_HEALTH000000002', false);
    expect(await stored('ws_HEALTH000000002')).toMatchObject({ state: { S: 'isolated' } });
    expect(await stored('ws_HEALTH000000002')).not.toHaveProperty('failingSince');
    await health().delivered('ws_HEALTH000000002', true);
    expect(await stored('ws_HEALTH000000002')).toMatchObject({ state: { S: 'enabled' } });
  });

  test('the breaker disables it while its failing period is the one it read; never twice', async () => {
    await putEndpoint('ws_HEALTH000000003', { state: 'isolated', failingSince: '2026-12-03T10:00:00.000Z' });
    expect(await health().disable('ws_HEALTH000000003', '2026-12-03T10:00:01.000Z', now)).toBe(false);
    expect(await health().disable('ws_HEALTH000000003', '2026-12-03T10:00:00.000Z', now)).toBe(true);
    expect(await stored('ws_HEALTH000000003')).toMatchObject({
      state: { S: 'disabled' },
      disabledAt: { S: '2026-12-08T10:00:00.000Z' },
      disabledReason: { S: 'failing' },
    });
    expect(await health().disable('ws_HEALTH000000003', '2026-12-03T10:00:00.000Z', now)).toBe(false);
  });

  test('a disabled endpoint stays disabled whatever its late attempts say; a removed one is not made again', async () => {
    await putEndpoint('ws_HEALTH000000004', {
      state: 'disabled',
      disabledAt: '2026-12-07T00:00:00.000Z',
      failingSince: '2026-12-02T00:00:00.000Z',
    });
    await health().isolate('ws_HEALTH000000004', now);
    await health().delivered('ws_HEALTH000000004', true);
    await health().delivered('ws_HEALTH000000004', false);
    expect(await stored('ws_HEALTH000000004')).toMatchObject({
      state: { S: 'disabled' },
      failingSince: { S: '2026-12-02T00:00:00.000Z' },
    });
    await health().isolate('ws_GONE00000000001', now);
    await health().delivered('ws_GONE00000000001', true);
    expect(await stored('ws_GONE00000000001')).toBeUndefined();
  });

  test("the tool's enable and disable; false for no such endpoint", async () => {
    await putEndpoint('ws_HEALTH000000005', { state: 'isolated', failingSince: '2026-12-03T10:00:00.000Z' });
    expect(await disableEndpoint(db.client, table, 'ws_HEALTH000000005', now)).toBe(true);
    expect(await stored('ws_HEALTH000000005')).toMatchObject({
      state: { S: 'disabled' },
      disabledAt: { S: '2026-12-08T10:00:00.000Z' },
      disabledReason: { S: 'operator' },
    });
    expect(await enableEndpoint(db.client, table, 'ws_HEALTH000000005')).toBe(true);
    const enabled = await stored('ws_HEALTH000000005');
    expect(enabled).toMatchObject({ state: { S: 'enabled' } });
    for (const gone of ['failingSince', 'disabledAt', 'disabledReason'])
      expect(enabled).not.toHaveProperty(gone);
    expect(await enableEndpoint(db.client, table, 'ws_GONE00000000002')).toBe(false);
    expect(await disableEndpoint(db.client, table, 'ws_GONE00000000002', now)).toBe(false);
    expect(await stored('ws_GONE00000000002')).toBeUndefined();
  });

  test("the key check's disable: only its owner's endpoint, only once", async () => {
    await putEndpoint('ws_HEALTH000000006', { ownerKeyId: 'aaaaaaaaaaaa' });
    expect(
      await disableForKey(db.client, table, 'ws_HEALTH000000006', 'bbbbbbbbbbbb', 'key_revoked', now),
    ).toBe(false);
    expect(
      await disableForKey(db.client, table, 'ws_HEALTH000000006', 'aaaaaaaaaaaa', 'scope_missing', now),
    ).toBe(true);
    expect(await stored('ws_HEALTH000000006')).toMatchObject({
      state: { S: 'disabled' },
      disabledReason: { S: 'scope_missing' },
      disabledAt: { S: '2026-12-08T10:00:00.000Z' },
    });
    expect(
      await disableForKey(db.client, table, 'ws_HEALTH000000006', 'aaaaaaaaaaaa', 'key_revoked', now),
    ).toBe(false);
    expect(await stored('ws_HEALTH000000006')).toMatchObject({ disabledReason: { S: 'scope_missing' } });
  });
});

describe('the failures table', () => {
  const failures = testTableNames.webhookFailures;
  const failure: WebhookFailure = {
    endpointId: 'ws_FAILED000000001',
    eventId: 'order.1795685400123000001.placed',
    type: 'order.changed',
    timestamp: '2026-11-26T09:31:00.000Z',
    data: placedOrderChange,
    attempts: 8,
    lastStatus: 503,
    lastError: 'HTTP 503',
    failedAt: '2026-12-08T10:00:00.000Z',
  };

  test('kept with its data as the exact JSON text, listed per endpoint or all, removed once redriven', async () => {
    await failureWriter(db.client, failures).put(failure);
    const { lastStatus: _status, ...noAnswer } = {
      ...failure,
      endpointId: 'ws_FAILED000000002',
      eventId: 'inventory.7.1',
    };
    await failureWriter(db.client, failures).put(noAnswer);
    const [item] = (await scanTable(db.client, failures)).filter(
      (i) => i.subscriptionId?.S === 'ws_FAILED000000001',
    );
    expect(item?.data).toStrictEqual({
      S: '{"orderId":1795685400123000001,"occurredAt":"2026-11-26T09:31:00.000Z","status":{"from":null,"to":"placed"},"order":{"id":1795685400123000001,"petId":-9223372036854775808,"quantity":1,"status":"placed","complete":false}}',
    });
    const store = failureStore(db.client, failures);
    expect(await store.list('ws_FAILED000000001')).toStrictEqual([failure]);
    expect(await store.list('ws_FAILED000000002')).toStrictEqual([noAnswer]);
    expect((await store.list()).map((f) => f.endpointId).sort()).toStrictEqual([
      'ws_FAILED000000001',
      'ws_FAILED000000002',
    ]);
    await store.remove('ws_FAILED000000001', failure.eventId);
    expect(await store.list('ws_FAILED000000001')).toStrictEqual([]);
    expect(await store.list('ws_FAILED000000002')).toHaveLength(1);
  });
});
