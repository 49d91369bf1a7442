/**
 * listInventoryHistory over HTTP (docs/contract.md "History and events") on the change records the consumer
 * writes: every record here comes from a real write (addPet, PATCH with each reason, placeOrder, a cancel
 * through updateOrder, the import tool's `inventory.putMany`) through the local API serving the synthesized
 * stack, its stream mapping and recordChanges; the suite polls the route until the records are there (failing
 * after 5 s, the contract's bound). `GET /v1/inventory/{petId}/history` answers the pet's records newest
 * first, each an InventoryChange with exactly its members in the contract's order (`orderId`, `keyId` only
 * when the record has them; the consumer's `streamSequence` never), `occurredAt` the writer's clock within
 * the write's window, in pages of `limit` (1-1000, default 100) linked by `Link` rel="next" until the oldest;
 * 200 `[]` for an entry whose records do not exist (an entry written before change records existed, made by
 * deleting its record from the history table); 404 `not_found` for a pet without an entry; 400 for a bad
 * petId, limit, cursor or another query parameter, before existence; 403 for a key without `inventory:read`.
 * Every response is checked against openapi.yaml.
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Scope } from '#lib/api.ts';
import { localTableNames } from '#local/settings.ts';
import { badPetIdMessage, declaredRequest, expectError } from '#test/support/http-assertions.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { changeTimeWithin, type TimeWindow, timed } from '#test/support/raw-tables.ts';
import { testApiSuite, unthrottled } from '#test/support/test-api.ts';

const api = testApiSuite({ events: true });

/** How long a record may take to appear after its write's answer (docs/contract.md "History and events"). */
const visibleWithinMs = 5000;

/** A change record as the consumer derives it from a write, with the window of that write. */
interface ExpectedChange {
  reason: string;
  quantity: [number | null, number];
  status: [string | null, string];
  /** The order's id as its decimal text (order reasons only). */
  orderId?: string;
  /** The API key's id (absent for the tools). */
  keyId?: string;
  window: TimeWindow;
}

const get = (path: string, headers: Record<string, string> = {}) =>
  declaredRequest(api, 'GET', path, { headers });

/** `method path` with the test key and a JSON `body`, asserting the status the write must have. */
async function write(method: string, path: string, body: string, status: number) {
  const response = await declaredRequest(api, method, path, { body });
  expect(response.status, response.text).toBe(status);
  return response;
}

/** The body of `GET /inventory/{petId}/history?limit=1000` once it holds `count` records; fails after 5 s. */
async function historyOf(petId: string, count: number): Promise<string> {
  const deadline = Date.now() + visibleWithinMs;
  for (;;) {
    const response = await get(`/inventory/${petId}/history?limit=1000`);
    expect(response.status, response.text).toBe(200);
    const length = (JSON.parse(response.text) as unknown[]).length;
    if (length >= count || Date.now() > deadline) {
      expect(length, `records of ${petId}: ${response.text}`).toBe(count);
      return response.text;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The `occurredAt` values of a history body, in its order. */
const occurredAts = (body: string) =>
  [...body.matchAll(/"occurredAt":"([^"]*)"/g)].map((match) => match[1] as string);

/** The exact JSON of `change` as record `sequence` of `petId`: the contract's members in its order. */
function changeJson(petId: string, sequence: number, occurredAt: string, change: ExpectedChange): string {
  const text = (value: string | null) => (value === null ? 'null' : `"${value}"`);
  const [quantityFrom, quantityTo] = change.quantity;
  const [statusFrom, statusTo] = change.status;
  return (
    `{"sequence":${sequence},"petId":${petId},"occurredAt":"${occurredAt}","reason":"${change.reason}",` +
    `"quantity":{"from":${quantityFrom},"to":${quantityTo}},"status":{"from":${text(statusFrom)},"to":"${statusTo}"}` +
    (change.orderId === undefined ? '' : `,"orderId":${change.orderId}`) +
    (change.keyId === undefined ? '' : `,"keyId":"${change.keyId}"`) +
    '}'
  );
}

/**
 * Asserts that `body` is exactly the history `oldestFirst` of `petId` (sequences 1..n), newest first: each
 * `occurredAt` an RFC 3339 UTC time with milliseconds within its write's window, the whole text exact.
 * Returns the `occurredAt` values, oldest first.
 */
function expectHistory(petId: string, body: string, oldestFirst: readonly ExpectedChange[]): string[] {
  const times = occurredAts(body).reverse();
  expect(times).toHaveLength(oldestFirst.length);
  oldestFirst.forEach((change, index) => {
    expect(times[index], `occurredAt of record ${index + 1}`).toEqual(changeTimeWithin(change.window));
  });
  const records = oldestFirst.map((change, index) =>
    changeJson(petId, index + 1, times[index] as string, change),
  );
  expect(body).toBe(`[${records.reverse().join(',')}]`);
  return times;
}

/** The path under /v1 of a `Link: </v1...>; rel="next"` header, asserting its exact form. */
function nextPath(link: string | null, petId: string, limit: number): string | undefined {
  if (link === null) return undefined;
  const match = new RegExp(
    `^</v1(/inventory/${petId}/history\\?limit=${limit}&cursor=[A-Za-z0-9_-]+)>; rel="next"$`,
  ).exec(link);
  expect(match, link).not.toBeNull();
  return match?.[1];
}

/** Every page from `path` on, following `Link` rel="next": each page's body. */
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

/** The records of a history body (one JSON text each), newest first, split at the top level. */
function recordsOf(body: string): string[] {
  return body === '[]'
    ? []
    : body
        .slice(2, -2)
        .split('},{')
        .map((record) => `{${record}}`);
}

/** `count` PATCHes of `petId` setting the quantity `from + 1`, `from + 2`, ... one after the other (reason default). */
async function adjustQuantity(petId: string, from: number, count: number): Promise<ExpectedChange[]> {
  const changes: ExpectedChange[] = [];
  for (let quantity = from + 1; quantity <= from + count; quantity++) {
    const { window } = await timed(() =>
      write('PATCH', `/inventory/${petId}`, `{"quantity": ${quantity}}`, 200),
    );
    changes.push({
      reason: 'adjustment',
      quantity: [quantity - 1, quantity],
      status: ['available', 'available'],
      keyId: api.keyId,
      window,
    });
  }
  return changes;
}

/**
 * The entries the tests share (petId: quantity), imported (the import tool's write) with one `putMany` before
 * them, so their records are awaited once: each record `import` from null to the entry, without keyId.
 */
const importedQuantities: Record<string, number> = {
  '501': 3,
  '-9223372036854775808': 3,
  '520': 2,
  '530': 0,
  '531': 5,
  '0': 0,
  '590': 1,
};
const imported: Record<string, ExpectedChange> = {};
beforeAll(async () => {
  const entries = Object.entries(importedQuantities);
  const { window } = await timed(() =>
    api.inventory.putMany(entries.map(([petId, quantity]) => ({ petId, quantity, status: 'available' }))),
  );
  for (const [petId, quantity] of entries) {
    imported[petId] = { reason: 'import', quantity: [null, quantity], status: [null, 'available'], window };
  }
  await Promise.all(entries.map(([petId]) => historyOf(petId, 1)));
});

/** The expected import record of a shared entry of {@link importedQuantities}. */
const importOf = (petId: string) => imported[petId] as ExpectedChange;

/** Deletes an item of a table with a raw DeleteItem request, independent of the code under test. */
async function deleteItem(table: string, key: Record<string, string>): Promise<void> {
  const Key = Object.fromEntries(Object.entries(key).map(([name, value]) => [name, { N: value }]));
  await api.dynamoDb.send(new DeleteItemCommand({ TableName: table, Key }));
}

describe('listInventoryHistory', () => {
  test('lists the records of addPet, PATCHes with each reason, an order, a cancelled order and an import newest first, exact bodies: members in order, orderId and keyId only when recorded, int64 ids digit for digit; a write changing nothing adds none', async () => {
    const petId = '9223372036854775807';
    const keyId = api.keyId;
    const changes: ExpectedChange[] = [];
    const step = async (run: () => Promise<unknown>, change: Omit<ExpectedChange, 'window'>) => {
      const { window } = await timed(run);
      changes.push({ ...change, window });
    };
    await step(() => write('POST', '/pets', `{"id": ${petId}, "name": "Max", "status": "available"}`, 201), {
      reason: 'created',
      quantity: [null, 0],
      status: [null, 'available'],
      keyId,
    });
    for (const [reason, from, to] of [
      ['arrival', 0, 30],
      ['return', 30, 31],
      ['adjustment', 31, 29],
    ] as const) {
      await step(
        () => write('PATCH', `/inventory/${petId}`, `{"quantity": ${to}, "reason": "${reason}"}`, 200),
        {
          reason,
          quantity: [from, to],
          status: ['available', 'available'],
          keyId,
        },
      );
    }
    /** Places an order of `quantity` of the pet (201); its id. */
    const placeOrder = async (quantity: number) => {
      const placed = await write(
        'POST',
        '/store/orders',
        `{"petId": ${petId}, "quantity": ${quantity}}`,
        201,
      );
      return /^\{"id":([1-9][0-9]*),/.exec(placed.text)?.[1] as string;
    };
    let kept = '';
    await step(
      async () => {
        kept = await placeOrder(2);
      },
      { reason: 'order_placed', quantity: [29, 27], status: ['available', 'available'], keyId },
    );
    let cancelled = '';
    await step(
      async () => {
        cancelled = await placeOrder(5);
      },
      { reason: 'order_placed', quantity: [27, 22], status: ['available', 'available'], keyId },
    );
    await step(() => write('PATCH', `/store/orders/${cancelled}`, '{"status": "cancelled"}', 200), {
      reason: 'order_cancelled',
      quantity: [22, 27],
      status: ['available', 'available'],
      keyId,
    });
    // Neither quantity nor status changes: no record.
    await write('PATCH', `/inventory/${petId}`, '{"quantity": 27, "status": "available"}', 200);
    await step(() => api.inventory.putMany([{ petId, quantity: 12, status: 'pending' }]), {
      reason: 'import',
      quantity: [27, 12],
      status: ['available', 'pending'],
    });
    const orderIds = [undefined, undefined, undefined, undefined, kept, cancelled, cancelled, undefined];
    changes.forEach((change, index) => {
      if (orderIds[index] !== undefined) change.orderId = orderIds[index];
    });

    const body = await historyOf(petId, changes.length);
    const times = expectHistory(petId, body, changes);
    const response = await get(`/inventory/${petId}/history`);
    expect([response.status, response.headers.get('content-type'), response.headers.get('link')]).toEqual([
      200,
      'application/json',
      null,
    ]);
    expect(occurredAts(response.text).reverse()).toEqual(times);
    expect(response.text).toBe(body);
  });

  test('answers 200 [] without Link for an entry whose records do not exist (written before change records: its record deleted from the history table), also for the int64 minimum', async () => {
    for (const petId of ['501', '-9223372036854775808']) {
      expectHistory(petId, await historyOf(petId, 1), [importOf(petId)]);
      await deleteItem(localTableNames().inventoryHistory, { petId, sequence: '1' });
      const response = await get(`/inventory/${petId}/history`);
      expect([response.status, response.text, response.headers.get('link')]).toEqual([200, '[]', null]);
      expect(response.headers.get('content-type')).toBe('application/json');
    }
  });

  test('pages of `limit` newest first, each linked to the next by Link rel="next", the last without, the cursor continuing below; only the pet\'s own records, not its neighbour\'s; pages of 100 by default', async () => {
    const petId = '530';
    const changes = [importOf(petId), ...(await adjustQuantity(petId, 0, 100))];
    const body = await historyOf(petId, 101);
    expectHistory(petId, body, changes);
    expectHistory('531', await historyOf('531', 1), [importOf('531')]);
    const records = recordsOf(body);
    const page = (from: number, to: number) => `[${records.slice(from, to).join(',')}]`;

    expect(await followPages(`/inventory/${petId}/history?limit=10`, petId, 10)).toEqual(
      Array.from({ length: 11 }, (_, index) => page(index * 10, index * 10 + 10)),
    );
    expect(await followPages(`/inventory/${petId}/history?limit=40`, petId, 40)).toEqual([
      page(0, 40),
      page(40, 80),
      page(80, 101),
    ]);
    // A page that ends exactly at the oldest record has no Link: no empty last page.
    expect(await followPages(`/inventory/${petId}/history?limit=101`, petId, 101)).toEqual([body]);
    // Without limit: 100, and the Link carries limit=100.
    expect(await followPages(`/inventory/${petId}/history`, petId, 100)).toEqual([
      page(0, 100),
      page(100, 101),
    ]);
    // The cursor after the oldest record (sequence 1), as the service writes cursors: nothing older.
    const after = await get(`/inventory/${petId}/history?cursor=${Buffer.from('1').toString('base64url')}`);
    expect([after.status, after.text, after.headers.get('link')]).toEqual([200, '[]', null]);
  });

  test('a petId written -0 or percent-encoded is the canonical one: its body and its Link name petId 0', async () => {
    const changes = [importOf('0'), ...(await adjustQuantity('0', 0, 1))];
    const body = await historyOf('0', 2);
    expectHistory('0', body, changes);
    for (const segment of ['-0', '%30', '%2D0']) {
      const response = await get(`/inventory/${segment}/history?limit=1`);
      expect([response.status, response.text]).toEqual([200, `[${recordsOf(body)[0]}]`]);
      expect(nextPath(response.headers.get('link'), '0', 1)).toBeDefined();
    }
  });

  test('answers 404 not_found for a pet without an inventory entry, even when change records of it exist', async () => {
    expectHistory('520', await historyOf('520', 1), [importOf('520')]);
    await deleteItem(localTableNames().inventory, { petId: '520' });
    for (const petId of ['520', '521']) {
      expectError(
        await get(`/inventory/${petId}/history`),
        404,
        'not_found',
        `no inventory entry for petId ${petId}`,
      );
    }
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
    const body = await historyOf(petId, 1);
    expectHistory(petId, body, [importOf(petId)]);
    const keyWith = async (scope: Scope) => {
      const key = await storeNewKey(api.keys, `history-${scope}`, unthrottled, [scope]);
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
    expect([allowed.status, allowed.text]).toEqual([200, body]);
  });
});
