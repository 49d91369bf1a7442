/**
 * listInventoryHistory over HTTP (docs/contract.md "History and events"): `GET /v1/inventory/{petId}/history`
 * answers the pet's change records newest first, each an InventoryChange with exactly its members in the
 * contract's order (`orderId`, `keyId` only when the record has them; the consumer's `streamSequence` never),
 * in pages of `limit` (1-1000, default 100) linked by `Link` rel="next" until the oldest; 200 `[]` for an entry
 * without changes; 404 `not_found` for a pet without an entry; 400 for a bad petId, limit, cursor or another
 * query parameter, before existence; 403 for a key without `inventory:read`. The change records are written
 * into the history table with raw PutItem requests as the consumer stores them (lib/tables.ts
 * `inventoryHistory`), so this suite does not depend on the consumer. Every response is checked against
 * openapi.yaml.
 */
import { describe, expect, test } from 'vitest';
import type { Scope } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { localTableNames } from '#local-api/dynamodb.ts';
import { badPetIdMessage, declaredRequest, expectError } from '#test/support/http-assertions.ts';
import { putItems, type RawItem } from '#test/support/raw-tables.ts';
import { testApiSuite, unthrottled } from '#test/support/test-api.ts';

const api = testApiSuite();

/** A stored change record's values, as the consumer writes them; `from` null for `created`. */
interface StoredChange {
  sequence: number;
  occurredAt: string;
  reason: string;
  quantity: [number | null, number];
  status: [string | null, string];
  /** The order, stored as a Number (`N`) or, as older writers may, a String (`S`). */
  orderId?: { N: string } | { S: string };
  keyId?: string;
}

/** The raw history item of `change` for `petId`, with the consumer's `streamSequence` bookkeeping. */
function historyItem(petId: string, change: StoredChange): RawItem {
  const fromTo = (from: RawItem[string], to: RawItem[string]): RawItem[string] => ({ M: { from, to } });
  const [quantityFrom, quantityTo] = change.quantity;
  const [statusFrom, statusTo] = change.status;
  return {
    petId: { N: petId },
    sequence: { N: String(change.sequence) },
    streamSequence: { S: String(4_000_000_000_000_000_000n + BigInt(change.sequence)) },
    occurredAt: { S: change.occurredAt },
    reason: { S: change.reason },
    quantity: fromTo(quantityFrom === null ? { NULL: true } : { N: String(quantityFrom) }, {
      N: String(quantityTo),
    }),
    status: fromTo(statusFrom === null ? { NULL: true } : { S: statusFrom }, { S: statusTo }),
    ...(change.orderId && { orderId: change.orderId }),
    ...(change.keyId && { keyId: { S: change.keyId } }),
  };
}

/** Writes the change records of `petId` into the history table. */
async function seedHistory(petId: string, changes: readonly StoredChange[]): Promise<void> {
  await putItems(
    api.dynamoDb,
    localTableNames().inventoryHistory,
    changes.map((change) => historyItem(petId, change)),
  );
}

/** `count` adjustments of `petId`, sequences 1..count, quantity going up by one each time. */
function adjustments(count: number): StoredChange[] {
  return Array.from({ length: count }, (_, index) => ({
    sequence: index + 1,
    occurredAt: new Date(Date.UTC(2026, 10, 26, 9, 0, 0, index)).toISOString(),
    reason: 'adjustment',
    quantity: [index, index + 1],
    status: ['available', 'available'],
    keyId: '8551c41ef090',
  }));
}

/** The JSON the contract gives an adjustment of {@link adjustments}. */
function adjustmentJson(petId: string, change: StoredChange): string {
  return `{"sequence":${change.sequence},"petId":${petId},"occurredAt":"${change.occurredAt}","reason":"adjustment","quantity":{"from":${change.quantity[0]},"to":${change.quantity[1]}},"status":{"from":"available","to":"available"},"keyId":"8551c41ef090"}`;
}

/** Newest first, as the body of one page. */
function pageJson(petId: string, changes: readonly StoredChange[]): string {
  const newestFirst = [...changes].sort((a, b) => b.sequence - a.sequence);
  return `[${newestFirst.map((change) => adjustmentJson(petId, change)).join(',')}]`;
}

const get = (path: string, headers: Record<string, string> = {}) =>
  declaredRequest(api, 'GET', path, { headers });

/** The path under /v1 of a `Link: </v1...>; rel="next"` header, asserting its exact form. */
function nextPath(link: string | null, petId: string, limit: number): string | undefined {
  if (link === null) return undefined;
  const match = new RegExp(
    `^</v1(/inventory/${petId}/history\\?limit=${limit}&cursor=[A-Za-z0-9_-]+)>; rel="next"$`,
  ).exec(link);
  expect(match, link).not.toBeNull();
  return match?.[1];
}

/** Every page from `path` on, following `Link` rel="next": each page's body and whether it had a Link. */
async function followPages(path: string, petId: string, limit: number): Promise<string[]> {
  const bodies: string[] = [];
  for (let next: string | undefined = path; next !== undefined; ) {
    const response = await get(next);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    bodies.push(response.text);
    next = nextPath(response.headers.get('link'), petId, limit);
  }
  return bodies;
}

describe('listInventoryHistory', () => {
  test('lists the changes newest first with exact bodies: members in order, orderId and keyId only when recorded, no streamSequence, int64 petId and orderId digit for digit', async () => {
    const petId = '9223372036854775807';
    await api.inventory.putMany([{ petId, quantity: 4, status: 'pending' }]);
    await seedHistory(petId, [
      {
        sequence: 1,
        occurredAt: '2026-11-26T08:00:00.000Z',
        reason: 'created',
        quantity: [null, 0],
        status: [null, 'available'],
        keyId: '8551c41ef090',
      },
      {
        sequence: 2,
        occurredAt: '2026-11-26T08:30:00.250Z',
        reason: 'arrival',
        quantity: [0, 12],
        status: ['available', 'available'],
        keyId: '8551c41ef090',
      },
      {
        sequence: 3,
        occurredAt: '2026-11-26T09:00:00.001Z',
        reason: 'order_placed',
        quantity: [12, 10],
        status: ['available', 'available'],
        orderId: { N: '9223372036854775806' },
        keyId: '0123456789ab',
      },
      {
        sequence: 4,
        occurredAt: '2026-11-26T09:15:00.999Z',
        reason: 'order_cancelled',
        quantity: [10, 12],
        status: ['available', 'available'],
        orderId: { S: '7529104386949123' },
        keyId: '0123456789ab',
      },
      {
        sequence: 5,
        occurredAt: '2026-11-26T10:00:00.000Z',
        reason: 'import',
        quantity: [12, 4],
        status: ['available', 'pending'],
      },
    ]);
    const response = await get(`/inventory/${petId}/history`);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('link')).toBeNull();
    expect(response.text).toBe(
      '[' +
        '{"sequence":5,"petId":9223372036854775807,"occurredAt":"2026-11-26T10:00:00.000Z","reason":"import","quantity":{"from":12,"to":4},"status":{"from":"available","to":"pending"}},' +
        '{"sequence":4,"petId":9223372036854775807,"occurredAt":"2026-11-26T09:15:00.999Z","reason":"order_cancelled","quantity":{"from":10,"to":12},"status":{"from":"available","to":"available"},"orderId":7529104386949123,"keyId":"0123456789ab"},' +
        '{"sequence":3,"petId":9223372036854775807,"occurredAt":"2026-11-26T09:00:00.001Z","reason":"order_placed","quantity":{"from":12,"to":10},"status":{"from":"available","to":"available"},"orderId":9223372036854775806,"keyId":"0123456789ab"},' +
        '{"sequence":2,"petId":9223372036854775807,"occurredAt":"2026-11-26T08:30:00.250Z","reason":"arrival","quantity":{"from":0,"to":12},"status":{"from":"available","to":"available"},"keyId":"8551c41ef090"},' +
        '{"sequence":1,"petId":9223372036854775807,"occurredAt":"2026-11-26T08:00:00.000Z","reason":"created","quantity":{"from":null,"to":0},"status":{"from":null,"to":"available"},"keyId":"8551c41ef090"}' +
        ']',
    );
  });

  test('answers 200 [] without Link for an entry without changes, also for a negative petId', async () => {
    await api.inventory.putMany([
      { petId: '501', quantity: 3, status: 'available' },
      { petId: '-9223372036854775808', quantity: 0, status: 'sold' },
    ]);
    for (const petId of ['501', '-9223372036854775808']) {
      const response = await get(`/inventory/${petId}/history`);
      expect([response.status, response.text, response.headers.get('link')]).toEqual([200, '[]', null]);
      expect(response.headers.get('content-type')).toBe('application/json');
    }
  });

  test("lists only that pet's changes: another pet's, even a neighbouring petId's, are not among them", async () => {
    await api.inventory.putMany([
      { petId: '511', quantity: 2, status: 'available' },
      { petId: '512', quantity: 9, status: 'available' },
    ]);
    const mine = adjustments(2);
    await seedHistory('511', mine);
    await seedHistory('512', adjustments(3));
    expect((await get('/inventory/511/history')).text).toBe(pageJson('511', mine));
  });

  test('answers 404 not_found for a pet without an inventory entry, even when change records of it exist', async () => {
    await seedHistory('520', adjustments(2));
    for (const petId of ['520', '521']) {
      expectError(
        await get(`/inventory/${petId}/history`),
        404,
        'not_found',
        `no inventory entry for petId ${petId}`,
      );
    }
  });

  test('pages of `limit` newest first, each linked to the next by Link rel="next", the last without; following them gives every change once', async () => {
    const petId = '530';
    await api.inventory.putMany([{ petId, quantity: 7, status: 'available' }]);
    const changes = adjustments(7);
    await seedHistory(petId, changes);
    const bySequence = (...sequences: number[]) =>
      pageJson(
        petId,
        changes.filter((change) => sequences.includes(change.sequence)),
      );
    expect(await followPages(`/inventory/${petId}/history?limit=3`, petId, 3)).toEqual([
      bySequence(7, 6, 5),
      bySequence(4, 3, 2),
      bySequence(1),
    ]);
    // A page that ends exactly at the oldest change has no Link: no empty last page.
    expect(await followPages(`/inventory/${petId}/history?limit=7`, petId, 7)).toEqual([
      pageJson(petId, changes),
    ]);
    expect(await followPages(`/inventory/${petId}/history?limit=1000`, petId, 1000)).toEqual([
      pageJson(petId, changes),
    ]);
  });

  test('a petId written -0 or percent-encoded is the canonical one: its body and its Link name petId 0', async () => {
    await api.inventory.putMany([{ petId: '0', quantity: 2, status: 'available' }]);
    const changes = adjustments(2);
    await seedHistory('0', changes);
    for (const segment of ['-0', '%30', '%2D0']) {
      const response = await get(`/inventory/${segment}/history?limit=1`);
      expect([response.status, response.text]).toEqual([200, pageJson('0', changes.slice(1))]);
      expect(nextPath(response.headers.get('link'), '0', 1)).toBeDefined();
    }
  });

  test('pages of 100 by default; the Link of the first page carries limit=100', async () => {
    const petId = '540';
    await api.inventory.putMany([{ petId, quantity: 101, status: 'available' }]);
    const changes = adjustments(101);
    await seedHistory(petId, changes);
    const first = await get(`/inventory/${petId}/history`);
    expect(first.status).toBe(200);
    expect(first.text).toBe(pageJson(petId, changes.slice(1)));
    const next = nextPath(first.headers.get('link'), petId, 100);
    expect(next).toBeDefined();
    const second = await get(next as string);
    expect([second.status, second.text, second.headers.get('link')]).toEqual([
      200,
      pageJson(petId, changes.slice(0, 1)),
      null,
    ]);
  });

  test('a cursor whose page would hold nothing older answers 200 []', async () => {
    const petId = '550';
    await api.inventory.putMany([{ petId, quantity: 2, status: 'available' }]);
    const changes = adjustments(2);
    await seedHistory(petId, changes);
    const first = await get(`/inventory/${petId}/history?limit=1`);
    const next = nextPath(first.headers.get('link'), petId, 1) as string;
    const second = await get(next);
    expect(second.text).toBe(pageJson(petId, changes.slice(0, 1)));
    expect(second.headers.get('link')).toBeNull();
    // The cursor after the oldest change (sequence 1), as the service writes cursors.
    const after = await get(`/inventory/${petId}/history?cursor=${Buffer.from('1').toString('base64url')}`);
    expect([after.status, after.text]).toEqual([200, '[]']);
  });

  test.each(['0', '1001', '01', '-1', '1.5', '1e2', 'x', '', '%201', '10000000000000000000000'])(
    'answers limit=%s with 400 invalid_request, also for a pet without an entry (validation before existence)',
    async (limit) => {
      await api.inventory.putMany([{ petId: '560', quantity: 1, status: 'available' }]);
      for (const petId of ['560', '561']) {
        expectError(
          await get(`/inventory/${petId}/history?limit=${limit}`),
          400,
          'invalid_request',
          'limit must be an integer from 1 to 1000',
        );
      }
    },
  );

  test.each([
    ['a made-up value', 'abc'],
    ['the cursor of sequence 0', Buffer.from('0').toString('base64url')],
    ['the cursor of a negative sequence', Buffer.from('-1').toString('base64url')],
    ['a cursor with leading zeros', Buffer.from('01').toString('base64url')],
    ['a padded cursor', `${Buffer.from('2').toString('base64url')}==`],
    ['a cursor beyond the safe integers', Buffer.from('90071992547409930').toString('base64url')],
    ['an overlong value', 'A'.repeat(4000)],
    ['an empty cursor', ''],
  ])('answers %s as cursor with 400 invalid_request, before existence', async (_name, cursor) => {
    await api.inventory.putMany([{ petId: '570', quantity: 1, status: 'available' }]);
    for (const petId of ['570', '571']) {
      expectError(
        await get(`/inventory/${petId}/history?cursor=${encodeURIComponent(cursor)}`),
        400,
        'invalid_request',
        'cursor is not valid: use the one of the Link header of the previous page',
      );
    }
  });

  test.each(['abc', '01', '+1', '1.5', '9223372036854775808'])(
    'answers the petId %s with 400 invalid_request',
    async (petId) => {
      expectError(
        await get(`/inventory/${encodeURIComponent(petId)}/history`),
        400,
        'invalid_request',
        badPetIdMessage,
      );
    },
  );

  test('answers another query parameter with 400 naming it', async () => {
    await api.inventory.putMany([{ petId: '580', quantity: 1, status: 'available' }]);
    expectError(
      await get('/inventory/580/history?status=available'),
      400,
      'invalid_request',
      'query parameters not allowed: "status" (this operation takes limit, cursor)',
    );
  });

  test('answers 403 forbidden to a key without inventory:read, 200 to a key holding only it', async () => {
    const petId = '590';
    await api.inventory.putMany([{ petId, quantity: 1, status: 'available' }]);
    const changes = adjustments(1);
    await seedHistory(petId, changes);
    const keyWith = async (scope: Scope) => {
      const key = generateApiKey();
      await api.keys.put({
        keyDigest: apiKeyDigest(key),
        name: `history-${scope}`,
        createdAt: new Date().toISOString(),
        scopes: [scope],
        ...unthrottled,
      });
      return { Authorization: `Bearer ${key}` };
    };
    for (const scope of ['inventory:write', 'orders:read', 'orders:write'] as const) {
      expectError(
        await get(`/inventory/${petId}/history`, await keyWith(scope)),
        403,
        'forbidden',
        'this API key lacks the scope inventory:read that listInventoryHistory requires',
      );
    }
    const allowed = await get(`/inventory/${petId}/history`, await keyWith('inventory:read'));
    expect([allowed.status, allowed.text]).toEqual([200, pageJson(petId, changes)]);
  });
});
