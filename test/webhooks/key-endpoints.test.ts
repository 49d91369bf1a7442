/**
 * The endpoints of API keys on an embedded DynamoDB (lib/webhooks/key-endpoints.ts; docs/contract.md "History and
 * events": at most 20 per key, one per key and URL, a disabled one enabled again by creating its URL, never for a
 * dead key; the tools' remove and revoke): what each call answers and leaves in the two tables.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { maxEndpointsPerKey } from '#lib/webhooks/endpoint-owners.ts';
import {
  disableOwnedEndpoints,
  type EndpointTables,
  keyEndpointStore,
  removeEndpoint,
} from '#lib/webhooks/key-endpoints.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
const names: EndpointTables = {
  endpoints: testTableNames.webhookEndpoints,
  owners: testTableNames.webhookEndpointOwners,
};

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
});
afterAll(() => db?.close());

const now = new Date('2026-12-08T10:00:00.000Z');
const store = () => keyEndpointStore(db.client, names);

/** The stored item of the endpoint `id` (raw attribute values), or undefined. */
async function stored(id: string) {
  return (await scanTable(db.client, names.endpoints)).find((item) => item.subscriptionId?.S === id);
}

/** The owner's item's endpoint ids, sorted. */
async function ownedIds(owner: string) {
  const item = (await scanTable(db.client, names.owners)).find((o) => o.ownerKeyId?.S === owner);
  return [...(item?.endpointIds?.SS ?? [])].sort();
}

describe('create', () => {
  test('a new URL: a new enabled endpoint, its id and URL hash in the owner item', async () => {
    const result = await store().create(
      'aaaaaaaaaaa1',
      'https://hooks.example.com/a',
      ['order.changed'],
      now,
    );
    expect(result).toStrictEqual({
      outcome: 'created',
      endpoint: {
        endpointId: expect.stringMatching(/^ws_/),
        url: 'https://hooks.example.com/a',
        events: ['order.changed'],
        secret: expect.stringMatching(/^whsec_/),
        createdAt: '2026-12-08T10:00:00.000Z',
        state: 'enabled',
        ownerKeyId: 'aaaaaaaaaaa1',
      },
    });
    const id = result.outcome === 'created' ? result.endpoint.endpointId : '';
    expect(await ownedIds('aaaaaaaaaaa1')).toStrictEqual([id]);
    const owner = (await scanTable(db.client, names.owners)).find((o) => o.ownerKeyId?.S === 'aaaaaaaaaaa1');
    expect(owner?.urlHashes?.SS).toHaveLength(1);
    expect(owner?.urlHashes?.SS?.[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('the same URL again: the existing endpoint takes the events, no secret shown, no second endpoint', async () => {
    const first = await store().create('aaaaaaaaaaa2', 'https://hooks.example.com/b', ['order.changed'], now);
    const id = first.outcome === 'created' ? first.endpoint.endpointId : '';
    const again = await store().create(
      'aaaaaaaaaaa2',
      'https://hooks.example.com/b',
      ['inventory.changed'],
      new Date(now.getTime() + 1_000),
    );
    expect(again).toStrictEqual({
      outcome: 'existing',
      endpoint: {
        endpointId: id,
        url: 'https://hooks.example.com/b',
        events: ['inventory.changed'],
        createdAt: '2026-12-08T10:00:00.000Z',
        state: 'enabled',
        ownerKeyId: 'aaaaaaaaaaa2',
      },
    });
    expect(await ownedIds('aaaaaaaaaaa2')).toStrictEqual([id]);
  });

  test('a URL disabled by the breaker or the tool: enabled again, its failing and disabled times removed', async () => {
    const first = await store().create('aaaaaaaaaaa3', 'https://hooks.example.com/c', ['order.changed'], now);
    const id = first.outcome === 'created' ? first.endpoint.endpointId : '';
    await db.client.send(
      new PutItemCommand({
        TableName: names.endpoints,
        Item: {
          ...((await stored(id)) as Record<string, never>),
          state: { S: 'disabled' },
          failingSince: { S: '2026-12-03T00:00:00.000Z' },
          disabledAt: { S: '2026-12-08T00:00:00.000Z' },
          disabledReason: { S: 'failing' },
        },
      }),
    );
    const again = await store().create('aaaaaaaaaaa3', 'https://hooks.example.com/c', ['order.changed'], now);
    expect(again).toMatchObject({ outcome: 'existing', endpoint: { endpointId: id, state: 'enabled' } });
    for (const gone of ['failingSince', 'disabledAt', 'disabledReason']) {
      expect(await stored(id)).not.toHaveProperty(gone);
    }
  });

  test.each(['key_revoked', 'key_expired'])(
    'a URL disabled because its key chain is dead (%s): key_dead, left disabled',
    async (reason) => {
      const owner = reason === 'key_revoked' ? 'aaaaaaaaaaa4' : 'aaaaaaaaaaa5';
      const first = await store().create(owner, 'https://hooks.example.com/d', ['order.changed'], now);
      const id = first.outcome === 'created' ? first.endpoint.endpointId : '';
      await disableOwnedEndpoints(db.client, names, owner, reason as 'key_revoked', now);
      expect(
        await store().create(owner, 'https://hooks.example.com/d', ['order.changed'], now),
      ).toStrictEqual({
        outcome: 'key_dead',
      });
      expect(await stored(id)).toMatchObject({ state: { S: 'disabled' }, disabledReason: { S: reason } });
    },
  );

  test('the 21st endpoint of a key: limit_reached, nothing written', async () => {
    const owner = 'aaaaaaaaaaa6';
    for (let n = 0; n < maxEndpointsPerKey; n++) {
      expect(
        await store().create(owner, `https://hooks.example.com/${n}`, ['order.changed'], now),
      ).toMatchObject({
        outcome: 'created',
      });
    }
    expect(await store().create(owner, 'https://hooks.example.com/21', ['order.changed'], now)).toStrictEqual(
      {
        outcome: 'limit_reached',
      },
    );
    expect(await ownedIds(owner)).toHaveLength(20);
    expect(await store().list(owner)).toHaveLength(20);
  });
});

describe('list and remove', () => {
  test("oldest first, then by id; never the secret; only the owner's", async () => {
    const owner = 'aaaaaaaaaaa7';
    const later = await store().create(
      owner,
      'https://hooks.example.com/late',
      ['order.changed'],
      new Date(now.getTime() + 5),
    );
    const early = await store().create(owner, 'https://hooks.example.com/early', ['order.changed'], now);
    await store().create('aaaaaaaaaaa8', 'https://hooks.example.com/other', ['order.changed'], now);
    const views = await store().list(owner);
    const id = (result: typeof later) => (result.outcome === 'created' ? result.endpoint.endpointId : '');
    expect(views.map((v) => v.endpointId)).toStrictEqual([id(early), id(later)]);
    expect(views[0]).not.toHaveProperty('secret');
    expect(await store().list('aaaaaaaaaaa9')).toStrictEqual([]);
  });

  test("remove: the owner's only, its id and URL free again; false for another key or none", async () => {
    const owner = 'aaaaaaaaaab0';
    const made = await store().create(owner, 'https://hooks.example.com/r', ['order.changed'], now);
    const id = made.outcome === 'created' ? made.endpoint.endpointId : '';
    expect(await store().remove('aaaaaaaaaab1', id)).toBe(false);
    expect(await store().remove(owner, 'ws_NONE000000000001')).toBe(false);
    expect(await store().remove(owner, id)).toBe(true);
    expect(await stored(id)).toBeUndefined();
    expect(await ownedIds(owner)).toStrictEqual([]);
    expect(await store().remove(owner, id)).toBe(false);
    expect(await store().create(owner, 'https://hooks.example.com/r', ['order.changed'], now)).toMatchObject({
      outcome: 'created',
    });
  });

  test("the tool's remove: an API key's endpoint with its owner's set, the tool's own alone, false for none", async () => {
    const owner = 'aaaaaaaaaab2';
    const made = await store().create(owner, 'https://hooks.example.com/t', ['order.changed'], now);
    const id = made.outcome === 'created' ? made.endpoint.endpointId : '';
    expect(await removeEndpoint(db.client, names, id)).toBe(true);
    expect(await ownedIds(owner)).toStrictEqual([]);
    await db.client.send(
      new PutItemCommand({
        TableName: names.endpoints,
        Item: marshall({
          subscriptionId: 'ws_TOOL0000000000001',
          url: 'https://hooks.example.com/tool',
          events: ['order.changed'],
          secret: 'whsec_x',
          createdAt: now.toISOString(),
        }),
      }),
    );
    expect(await removeEndpoint(db.client, names, 'ws_TOOL0000000000001')).toBe(true);
    expect(await stored('ws_TOOL0000000000001')).toBeUndefined();
    expect(await removeEndpoint(db.client, names, 'ws_TOOL0000000000001')).toBe(false);
  });
});

describe("the key tool's revoke", () => {
  test("every endpoint of the chain disabled with the reason, also those the fan-out disabled first; not another reason's", async () => {
    const owner = 'aaaaaaaaaab3';
    const ids: string[] = [];
    for (const path of ['x', 'y', 'z']) {
      const made = await store().create(owner, `https://hooks.example.com/${path}`, ['order.changed'], now);
      ids.push(made.outcome === 'created' ? made.endpoint.endpointId : '');
    }
    const [x, y, z] = ids as [string, string, string];
    // y: already disabled by the fan-out with the same reason; z: by the tool.
    await db.client.send(
      new PutItemCommand({
        TableName: names.endpoints,
        Item: {
          ...((await stored(y)) as Record<string, never>),
          state: { S: 'disabled' },
          disabledReason: { S: 'key_revoked' },
        },
      }),
    );
    await db.client.send(
      new PutItemCommand({
        TableName: names.endpoints,
        Item: {
          ...((await stored(z)) as Record<string, never>),
          state: { S: 'disabled' },
          disabledReason: { S: 'operator' },
        },
      }),
    );
    const disabled = await disableOwnedEndpoints(db.client, names, owner, 'key_revoked', now);
    expect(disabled.sort()).toStrictEqual([x, y].sort());
    expect(await stored(x)).toMatchObject({
      state: { S: 'disabled' },
      disabledReason: { S: 'key_revoked' },
      disabledAt: { S: '2026-12-08T10:00:00.000Z' },
    });
    expect(await stored(z)).toMatchObject({ disabledReason: { S: 'operator' } });
    expect(await disableOwnedEndpoints(db.client, names, 'aaaaaaaaaab4', 'key_revoked', now)).toStrictEqual(
      [],
    );
  });
});
