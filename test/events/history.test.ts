/**
 * Change records end to end, on the local API serving the synthesized stack (docs/contract.md "History and
 * events"): the write path, the embedded store's stream, the stream mapping, recordChanges and
 * listInventoryHistory. After a mixed sequence of writes (addPet, PATCHes with each reason, an order, a
 * cancelled order, an import) a pet's history is a continuous chain, each record visible within 5 s of its
 * write's answer; an order refused as `pet_unavailable` adds none; 200 concurrent PATCHes of one pet add exactly
 * 200 records, gap-free.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { InventoryChange } from '#lib/events/changes.ts';
import { manyConnectionsTimeoutMs } from '#test/support/connection-retries.ts';
import { type RawClient, rawClient, sendJson } from '#test/support/raw-http.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

/** A record as listInventoryHistory answers it, ids read as their decimal text (exactJson). */
type Change = InventoryChange;

/** How long a record may take to appear after its write's answer (docs/contract.md "History and events"). */
const visibleWithinMs = 5000;

let api: TestApi;
let client: RawClient;
beforeAll(async () => {
  api = await startTestApi({ events: true });
  client = rawClient(api.baseUrl, { maxSockets: 200, retryConnectionErrors: true });
});
afterAll(async () => {
  client?.close();
  await api?.close();
});

/** JSON with the ids (`petId`, `orderId`, `id`) read as their exact decimal text. */
const exactJson = (text: string) =>
  JSON.parse(text, (key, value, context?: { source?: string }) =>
    ['petId', 'orderId', 'id'].includes(key) && typeof value === 'number' ? context?.source : value,
  );

/** The whole history of `petId`, newest first (one page of up to 1000). */
async function history(petId: string): Promise<Change[]> {
  const response = await api.request('GET', `/inventory/${petId}/history?limit=1000`, {
    headers: { Authorization: api.authorization },
  });
  expect(response.status, response.text).toBe(200);
  return exactJson(response.text) as Change[];
}

/** Waits until `petId` has `count` records; fails after `ms`. Returns the history and when it was complete. */
async function historyOf(petId: string, count: number, ms = visibleWithinMs): Promise<Change[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const changes = await history(petId);
    if (changes.length >= count || Date.now() > deadline) {
      expect(changes.length, JSON.stringify(changes)).toBe(count);
      return changes;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `method path` with the test key and a JSON body (text: written as is); the status and the body's exact JSON. */
async function call(method: string, path: string, body: unknown) {
  const response = await api.request(method, path, {
    headers: { Authorization: api.authorization, 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: response.text ? exactJson(response.text) : undefined };
}

/** The entry of `petId` as getInventoryItem answers it. */
async function entryOf(petId: string) {
  const response = await api.request('GET', `/inventory/${petId}`, {
    headers: { Authorization: api.authorization },
  });
  return exactJson(response.text) as { petId: string; quantity: number; status: string };
}

/** Asserts the chain: sequences n..1 without gaps, each `from` the previous `to`, the newest `to` the entry. */
async function expectChain(petId: string, changes: Change[]) {
  expect(changes.map((change) => change.sequence)).toStrictEqual(
    changes.map((_, index) => changes.length - index),
  );
  const oldestFirst = [...changes].reverse();
  oldestFirst.forEach((change, index) => {
    const previous = oldestFirst[index - 1];
    expect(change.petId).toBe(petId);
    expect(change.quantity.from).toBe(previous ? previous.quantity.to : null);
    expect(change.status.from).toBe(previous ? previous.status.to : null);
  });
  const entry = await entryOf(petId);
  expect({ quantity: changes[0]?.quantity.to, status: changes[0]?.status.to }).toStrictEqual({
    quantity: entry.quantity,
    status: entry.status,
  });
}

describe('a mixed sequence of writes', () => {
  test('is one continuous chain, each record visible within 5 s of its answer, with its reason, order and key', async () => {
    const steps: { write: () => Promise<unknown>; expected: Partial<Change> }[] = [];
    let petId = '';
    let orderId = '';
    let cancelledId = '';
    const keyId = api.keyId;
    steps.push({
      write: async () => {
        const added = await call('POST', '/pets', { name: 'Chain', status: 'available' });
        expect(added.status).toBe(201);
        petId = added.body.id;
      },
      expected: {
        reason: 'created',
        quantity: { from: null, to: 0 },
        status: { from: null, to: 'available' },
        keyId,
      },
    });
    for (const [reason, quantity] of [
      ['arrival', 30],
      ['return', 31],
      ['adjustment', 29],
    ] as const) {
      steps.push({
        write: async () =>
          expect((await call('PATCH', `/inventory/${petId}`, { quantity, reason })).status).toBe(200),
        expected: { reason, keyId },
      });
    }
    /** Places an order of `quantity` of the pet (201); its id. */
    const placeOrder = async (quantity: number) => {
      const placed = await call('POST', '/store/orders', `{"petId": ${petId}, "quantity": ${quantity}}`);
      expect(placed.status).toBe(201);
      return placed.body.id;
    };
    steps.push({
      write: async () => {
        orderId = await placeOrder(2);
      },
      expected: { reason: 'order_placed', quantity: { from: 29, to: 27 }, keyId },
    });
    steps.push({
      write: async () => {
        cancelledId = await placeOrder(5);
      },
      expected: { reason: 'order_placed', quantity: { from: 27, to: 22 }, keyId },
    });
    steps.push({
      write: async () =>
        expect((await call('PATCH', `/store/orders/${cancelledId}`, { status: 'cancelled' })).status).toBe(
          200,
        ),
      expected: { reason: 'order_cancelled', quantity: { from: 22, to: 27 }, keyId },
    });
    steps.push({
      write: () => api.inventory.putMany([{ petId, quantity: 12, status: 'pending' }]),
      expected: {
        reason: 'import',
        quantity: { from: 27, to: 12 },
        status: { from: 'available', to: 'pending' },
      },
    });

    for (const [index, step] of steps.entries()) {
      await step.write();
      const answered = Date.now();
      const changes = await historyOf(petId, index + 1);
      expect(Date.now() - answered).toBeLessThan(visibleWithinMs);
      expect(changes[0]).toMatchObject(step.expected);
    }

    const changes = await history(petId);
    await expectChain(petId, changes);
    const oldestFirst = [...changes].reverse();
    expect(oldestFirst.map((change) => change.orderId)).toStrictEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      orderId,
      cancelledId,
      cancelledId,
      undefined,
    ]);
    // The tools write no key id: the import's record has none.
    expect(changes[0] && 'keyId' in changes[0]).toBe(false);
  });
});

describe('an order refused for an unavailable entry', () => {
  test('leaves no record: the next change follows the one before', async () => {
    await api.inventory.putMany([{ petId: '16', quantity: 3, status: 'sold' }]);
    await historyOf('16', 1);
    const refused = await call('POST', '/store/orders', '{"petId": 16, "quantity": 1}');
    expect(refused).toEqual({
      status: 409,
      body: {
        code: 'pet_unavailable',
        message: 'petId 16 is not available: its status is sold',
        status: 409,
      },
    });
    expect((await call('PATCH', '/inventory/16', '{"quantity": 4}')).status).toBe(200);
    // Records arrive in commit order per pet: once the PATCH's is listed, one of the refusal would be too.
    const changes = await historyOf('16', 2);
    expect(changes.map((change) => [change.sequence, change.reason, change.quantity.to])).toEqual([
      [2, 'adjustment', 4],
      [1, 'import', 3],
    ]);
  });
});

describe('200 concurrent PATCHes of one pet', { timeout: manyConnectionsTimeoutMs }, () => {
  test('add exactly 200 records, gap-free, the newest equal to the entry', async () => {
    const petId = '-9223372036854775808';
    await api.inventory.putMany([{ petId, quantity: 0, status: 'available' }]);
    await historyOf(petId, 1);

    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        sendJson(client, api.authorization, 'PATCH', `/inventory/${petId}`, `{"quantity": ${index + 1}}`),
      ),
    );
    expect(answers.map((answer) => answer.status)).toStrictEqual(answers.map(() => 200));

    const changes = await historyOf(petId, 201, 15_000);
    await expectChain(petId, changes);
    expect(changes.slice(0, 200).every((change) => change.reason === 'adjustment')).toBe(true);
    expect(new Set(changes.slice(0, 200).map((change) => change.quantity.to)).size).toBe(200);
  });
});
