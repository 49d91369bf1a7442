/**
 * Slow answers (docs/contract.md "Exactly once under retries"; docs/architecture.md "Slow answers"): the store
 * commits a write and answers it only after the SDK's request timeout, so the service's DynamoDB client sends
 * the write again as configured (lib/clients/dynamodb-client.ts), and in the rows that say so another client
 * writes the same item after the commit and before that retry. For each write the client must get the answer
 * of one application, and the tables (items, orders, stock, change records) must hold exactly one application
 * of the request.
 *
 * Every row runs on the embedded store (test/support/slow-answer-hook.ts preloaded into `npm start`) and on
 * AWS's DynamoDB Local (the fault proxy's `late` answers): test/support/slow-answer-stores.ts. DynamoDB Local
 * needs Java: when `java` is not on PATH that half is skipped, with the reason printed, as
 * test/fidelity/aws-dynamodb-local.test.ts does.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { temporaryDir } from '@pet-store/local-aws/testing';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { hasJava } from '#test/support/dynamodb-local.ts';
import { callServer, stockOf } from '#test/support/server-calls.ts';
import { type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { dynamoDbLocalStore, embeddedStore, type SlowAnswerStore } from '#test/support/slow-answer-stores.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const javaPresent = hasJava();
if (!javaPresent) {
  console.warn(
    'test/faults/slow-answer.test.ts (DynamoDB Local half) skipped: `java` is not on PATH, and DynamoDB Local is a Java program.',
  );
}

const inventory = testTableNames.inventory;

/** How long the change records of a write may take in this suite (the contract's 5 s, with room for load). */
const recordsWithinMs = 20_000;

/** Registers every row of the suite on the store `start` makes, served by `npm start`. */
function slowAnswerSuite(start: () => Promise<SlowAnswerStore>): void {
  const apiKey = generateApiKey();
  let store: SlowAnswerStore;
  let server: ServerProcess;

  beforeAll(async () => {
    store = await start();
    server = await startServerProcess({ ...store.serverVariables, API_KEY: apiKey });
  }, 90_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await store?.close();
  });

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    callServer(server, apiKey, method, path, body, headers);

  /** Runs `write` with the store's answer to the first `slowWrite` (`<Operation> [<TableName>]`) held late. */
  async function slowly<T>(slowWrite: string, write: () => Promise<T>): Promise<T> {
    await store.arm(slowWrite);
    const result = await write();
    expect(store.fired(), `${slowWrite} was never written`).toBe(true);
    return result;
  }

  /**
   * Runs `write`, whose transaction on `table` the store commits and answers late, and runs `other` (another
   * client's write) after that commit and before the SDK's retry (the retry waits until `other` is done). The
   * table keeps the background transactions (the change records' consumer) out of the arming.
   */
  async function slowlyAfterOther<T>(
    write: () => Promise<T>,
    other: () => Promise<void>,
    table: string = inventory,
  ): Promise<T> {
    const window = await store.openWindow();
    const answer = slowly(`TransactWriteItems ${table}`, write);
    try {
      await vi.waitFor(() => expect(window.committed()).toBe(true), { timeout: 20_000, interval: 20 });
      await other();
    } finally {
      await window.close();
    }
    return answer;
  }

  /** Another client's PATCH of `petId`'s stock to `quantity` (reason `adjustment`): 200. */
  async function otherSets(petId: number | string, quantity: number): Promise<void> {
    expect((await call('PATCH', `/inventory/${petId}`, { quantity })).status).toBe(200);
  }

  /** Another client's adjustment of `petId`'s stock by `adjustBy` (reason `arrival`): 200. */
  async function otherAdjusts(petId: number, adjustBy: number): Promise<void> {
    expect((await call('PATCH', `/inventory/${petId}`, { adjustBy, reason: 'arrival' })).status).toBe(200);
  }

  /** Adds pet `id` (201) and sets its stock to `quantity` (200), both answered at once. */
  async function stockedPet(id: number, quantity: number): Promise<void> {
    expect((await call('POST', '/pets', { id, name: `Pet ${id}`, status: 'available' })).status).toBe(201);
    expect((await call('PATCH', `/inventory/${id}`, { quantity, reason: 'arrival' })).status).toBe(200);
  }

  /**
   * The change records of `petId`, oldest first, as `<reason> <quantity.from>><quantity.to>`, once a last change
   * made here (a PATCH to quantity 999, reason `return`) is recorded: records follow commit order per pet, so
   * every record of an earlier write is there by then; that last record is left out.
   */
  async function changesOf(petId: number): Promise<string[]> {
    expect((await call('PATCH', `/inventory/${petId}`, { quantity: 999, reason: 'return' })).status).toBe(
      200,
    );
    const deadline = Date.now() + recordsWithinMs;
    for (;;) {
      const records = await store.changes(petId, call);
      if (/^return \d+>999$/.test(records.at(-1) ?? '')) return records.slice(0, -1);
      expect(Date.now(), `records of ${petId}: ${JSON.stringify(records)}`).toBeLessThan(deadline);
      await setTimeout(100);
    }
  }

  /** The orders of `petId` in the orders table: `orderId quantity status`. */
  async function ordersOf(petId: number): Promise<string[]> {
    const orders = await store.table('orders');
    return orders
      .filter((item) => item.petId?.N === String(petId))
      .map((item) => `${item.orderId?.N} ${item.quantity?.N} ${item.status?.S}`);
  }

  /** The stock of `petId` as the inventory table holds it: `quantity status`. */
  async function stockOfPet(petId: number): Promise<string | undefined> {
    return stockOf(await store.table('inventory'))[String(petId)];
  }

  describe('a write answered after the SDK request timeout is applied once and answered as applied', () => {
    test("PATCH with If-Match, another client's write before the retry: 200 with the entry as it now is, never 412; one change record each", async () => {
      await stockedPet(701, 10);
      const answer = await slowlyAfterOther(
        () => call('PATCH', '/inventory/701', { quantity: 4 }, { 'If-Match': '"10-available"' }),
        () => otherSets(701, 6),
      );
      expect([answer.status, answer.body, answer.headers.get('etag')]).toStrictEqual([
        200,
        { petId: 701, quantity: 6, status: 'available' },
        '"6-available"',
      ]);
      expect(await stockOfPet(701)).toBe('6 available');
      expect(await changesOf(701)).toStrictEqual([
        'created null>0',
        'arrival 0>10',
        'adjustment 10>4',
        'adjustment 4>6',
      ]);
    });

    test("PATCH without If-Match, another client's write before the retry: 200, applied once, the other write not lost", async () => {
      await stockedPet(702, 10);
      const answer = await slowlyAfterOther(
        () => call('PATCH', '/inventory/702', { quantity: 5, reason: 'arrival' }),
        () => otherSets(702, 7),
      );
      expect([answer.status, answer.body, answer.headers.get('etag')]).toStrictEqual([
        200,
        { petId: 702, quantity: 7, status: 'available' },
        '"7-available"',
      ]);
      expect(await stockOfPet(702)).toBe('7 available');
      expect(await changesOf(702)).toStrictEqual([
        'created null>0',
        'arrival 0>10',
        'arrival 10>5',
        'adjustment 5>7',
      ]);
    });

    test.each([
      ['without Idempotency-Key', 721, {}],
      ['with Idempotency-Key', 722, { 'Idempotency-Key': 'slow-sale-722' }],
    ])(
      "PATCH adjustBy %s, another client's adjustment before the retry: 200, the stock moved once, the other kept",
      async (_, petId, headers) => {
        await stockedPet(petId, 10);
        const answer = await slowlyAfterOther(
          () => call('PATCH', `/inventory/${petId}`, { adjustBy: -2, reason: 'sale' }, headers),
          () => otherAdjusts(petId, 100),
        );
        // The answer is the entry as read after the commit: the other adjustment came in between.
        expect([answer.status, answer.body]).toStrictEqual([
          200,
          { petId, quantity: 108, status: 'available' },
        ]);
        expect(await stockOfPet(petId)).toBe('108 available');
        expect(await changesOf(petId)).toStrictEqual([
          'created null>0',
          'arrival 0>10',
          'sale 10>8',
          'arrival 8>108',
        ]);
      },
    );

    test("batchUpdateInventory of adjustments, its transaction answered late, another client's adjustment before the retry: 200 as written, each moved once", async () => {
      await stockedPet(731, 10);
      await stockedPet(732, 10);
      const changes = [
        { petId: 731, adjustBy: -3, reason: 'sale' },
        { petId: 732, adjustBy: 4, reason: 'return' },
      ];
      const answer = await slowlyAfterOther(
        () => call('POST', '/inventory/batch', { changes }),
        () => otherAdjusts(731, 100),
      );
      expect([answer.status, answer.body]).toStrictEqual([
        200,
        {
          items: [
            { petId: 731, quantity: 7, status: 'available', etag: '"7-available"' },
            { petId: 732, quantity: 14, status: 'available', etag: '"14-available"' },
          ],
        },
      ]);
      expect(await stockOfPet(731)).toBe('107 available');
      expect(await stockOfPet(732)).toBe('14 available');
      expect(await changesOf(731)).toStrictEqual([
        'created null>0',
        'arrival 0>10',
        'sale 10>7',
        'arrival 7>107',
      ]);
      expect(await changesOf(732)).toStrictEqual(['created null>0', 'arrival 0>10', 'return 10>14']);
    });

    test("addPet with id, another client's write before the retry: 201 with the pet, not 409 for its own write; one pet", async () => {
      const pet = { id: 703, name: 'Slow Nemo', status: 'available' };
      const answer = await slowlyAfterOther(
        () => call('POST', '/pets', pet),
        () => otherSets(703, 3),
      );
      expect([answer.status, answer.body, answer.headers.get('location')]).toStrictEqual([
        201,
        { ...pet, photoUrls: [], tags: [] },
        '/v1/pets/703',
      ]);
      expect(await stockOfPet(703)).toBe('3 available');
      expect(await changesOf(703)).toStrictEqual(['created null>0', 'adjustment 0>3']);
    });

    test("addPet without id, another client's write before the retry: 201 with the assigned id, exactly one pet created", async () => {
      const pet = { name: 'Slow Dory', status: 'pending' };
      const namedIds = async () =>
        (await store.table('inventory'))
          .filter((item) => item.name?.S === pet.name)
          .map((item) => item.petId?.N);
      const answer = await slowlyAfterOther(
        () => call('POST', '/pets', pet),
        async () => {
          const [created] = await namedIds();
          await otherSets(created as string, 2);
        },
      );
      expect(answer.status).toBe(201);
      const id = String(answer.body.id);
      expect(answer.body).toStrictEqual({ id: answer.body.id, ...pet, photoUrls: [], tags: [] });
      expect(answer.headers.get('location')).toBe(`/v1/pets/${id}`);
      expect(await namedIds()).toStrictEqual([id]);
      expect(await stockOfPet(Number(id))).toBe('2 pending');
    });

    test("placeOrder without Idempotency-Key, another client's write before the retry: 201, one order, the stock falls once", async () => {
      await stockedPet(704, 10);
      const answer = await slowlyAfterOther(
        () => call('POST', '/store/orders', { petId: 704, quantity: 3 }),
        () => otherSets(704, 20),
      );
      expect([answer.status, answer.body]).toStrictEqual([
        201,
        { id: answer.body.id, petId: 704, quantity: 3, status: 'placed', complete: false },
      ]);
      expect(await ordersOf(704)).toStrictEqual([`${answer.body.id} 3 placed`]);
      expect(await stockOfPet(704)).toBe('20 available');
      expect(await changesOf(704)).toStrictEqual([
        'created null>0',
        'arrival 0>10',
        'order_placed 10>7',
        'adjustment 7>20',
      ]);
    });

    test.each([
      ['its idempotency record', `PutItem ${testTableNames.idempotency}`, 705],
      ['its transaction', `TransactWriteItems ${inventory}`, 706],
    ])(
      'placeOrder with Idempotency-Key, %s answered late: 201, never 409 for its own retry; one order',
      async (_, slowWrite, petId) => {
        await stockedPet(petId, 10);
        const order = { petId, quantity: 2 };
        const headers = { 'Idempotency-Key': `slow-${petId}` };
        const answer = await slowly(slowWrite, () => call('POST', '/store/orders', order, headers));
        const placed = { id: answer.body.id, ...order, status: 'placed', complete: false };
        expect([answer.status, answer.body]).toStrictEqual([201, placed]);
        expect(await ordersOf(petId)).toStrictEqual([`${answer.body.id} 2 placed`]);
        expect(await stockOfPet(petId)).toBe('8 available');
        const repeat = await call('POST', '/store/orders', order, headers);
        expect([repeat.status, repeat.body]).toStrictEqual([201, placed]);
        expect(await changesOf(petId)).toStrictEqual(['created null>0', 'arrival 0>10', 'order_placed 10>8']);
      },
    );

    test.each([
      ['with ifMatch', 711, { ifMatch: '"10-available"' }, {}],
      ['without ifMatch', 713, {}, {}],
      [
        'with ifMatch and an Idempotency-Key',
        715,
        { ifMatch: '"10-available"' },
        { 'Idempotency-Key': 'slow-715' },
      ],
    ])(
      "batchUpdateInventory %s, its transaction answered late, another client's write before the retry: 200 with the entries as written, never 412; one change record each",
      async (_, petId, precondition, headers) => {
        await stockedPet(petId, 10);
        await stockedPet(petId + 1, 10);
        const changes = [
          { petId, quantity: 30, reason: 'arrival', ...precondition },
          { petId: petId + 1, status: 'pending', ...precondition },
        ];
        const answer = await slowlyAfterOther(
          () => call('POST', '/inventory/batch', { changes }, headers),
          () => otherSets(petId, 50),
        );
        const applied = {
          items: [
            { petId, quantity: 30, status: 'available', etag: '"30-available"' },
            { petId: petId + 1, quantity: 10, status: 'pending', etag: '"10-pending"' },
          ],
        };
        expect([answer.status, answer.body]).toStrictEqual([200, applied]);
        expect(await stockOfPet(petId)).toBe('50 available');
        expect(await stockOfPet(petId + 1)).toBe('10 pending');
        expect(await changesOf(petId)).toStrictEqual([
          'created null>0',
          'arrival 0>10',
          'arrival 10>30',
          'adjustment 30>50',
        ]);
        expect(await changesOf(petId + 1)).toStrictEqual([
          'created null>0',
          'arrival 0>10',
          'adjustment 10>10',
        ]);
      },
    );

    test("updateOrder cancel, another client's write before the retry: 200 cancelled, the stock returned once", async () => {
      await stockedPet(707, 10);
      const placed = await call('POST', '/store/orders', { petId: 707, quantity: 4 });
      expect(placed.status).toBe(201);
      const answer = await slowlyAfterOther(
        () => call('PATCH', `/store/orders/${placed.body.id}`, { status: 'cancelled' }),
        () => otherSets(707, 20),
      );
      expect([answer.status, answer.body]).toStrictEqual([200, { ...placed.body, status: 'cancelled' }]);
      expect(await ordersOf(707)).toStrictEqual([`${placed.body.id} 4 cancelled`]);
      expect(await stockOfPet(707)).toBe('20 available');
      expect(await changesOf(707)).toStrictEqual([
        'created null>0',
        'arrival 0>10',
        'order_placed 10>6',
        'order_cancelled 6>10',
        'adjustment 10>20',
      ]);
    });

    test('updateOrder approve, a cancel before the retry: 200 approved, never 409; one status change each, the stock returned once', async () => {
      await stockedPet(708, 10);
      const placed = await call('POST', '/store/orders', { petId: 708, quantity: 1 });
      expect(placed.status).toBe(201);
      const path = `/store/orders/${placed.body.id}`;
      const answer = await slowlyAfterOther(
        () => call('PATCH', path, { status: 'approved' }),
        async () => expect((await call('PATCH', path, { status: 'cancelled' })).status).toBe(200),
        testTableNames.orders,
      );
      expect([answer.status, answer.body]).toStrictEqual([200, { ...placed.body, status: 'approved' }]);
      expect(await ordersOf(708)).toStrictEqual([`${placed.body.id} 1 cancelled`]);
      expect(await stockOfPet(708)).toBe('10 available');
      expect(await changesOf(708)).toStrictEqual([
        'created null>0',
        'arrival 0>10',
        'order_placed 10>9',
        'order_cancelled 9>10',
      ]);
    });

    test('the import tool: every row written once, one change record each', async () => {
      const rows = [
        { petId: 709, quantity: 5, status: 'available' },
        { petId: 710, quantity: 6, status: 'pending' },
      ];
      const file = join(await temporaryDir('slow-import-'), 'rows.json');
      await writeFile(file, JSON.stringify(rows));
      const tool = await store.tool();
      const result = await slowly(`BatchWriteItem ${inventory}`, () =>
        runNode(scripts.import, [file], { env: childEnv(tool.variables) }),
      );
      expect(result).toMatchObject({
        code: 0,
        stdout: `Imported 2 entries into DynamoDB at ${tool.endpoint}.\n`,
      });
      expect(await stockOfPet(709)).toBe('5 available');
      expect(await stockOfPet(710)).toBe('6 pending');
      expect(await changesOf(709)).toStrictEqual(['import null>5']);
    });

    test("createWebhookEndpoint: 201 with the endpoint and its secret, one endpoint, its id once in the key's set", async () => {
      const url = 'http://127.0.0.1:9/slow-hooks';
      const answer = await slowly('TransactWriteItems', () => call('POST', '/webhook-endpoints', { url }));
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ url, state: 'enabled', secret: expect.stringMatching(/^whsec_/) });
      const endpoints = (await store.table('webhookEndpoints')).filter((item) => item.url?.S === url);
      expect(endpoints.map((item) => item.subscriptionId?.S)).toStrictEqual([answer.body.id]);
      const owners = await store.table('webhookEndpointOwners');
      expect(owners.map((item) => item.endpointIds?.SS)).toStrictEqual([[answer.body.id]]);
    });

    test('deleteWebhookEndpoint: 204, never 404 for its own retry; the endpoint and its id gone', async () => {
      const created = await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/slow-delete' });
      expect(created.status).toBe(201);
      const answer = await slowly('TransactWriteItems', () =>
        call('DELETE', `/webhook-endpoints/${created.body.id}`),
      );
      expect(answer.status).toBe(204);
      const ids = (await store.table('webhookEndpoints')).map((item) => item.subscriptionId?.S);
      expect(ids).not.toContain(created.body.id);
      const owners = await store.table('webhookEndpointOwners');
      expect(owners.flatMap((item) => item.endpointIds?.SS ?? [])).not.toContain(created.body.id);
    });
  });
}

describe('on the embedded store', () => {
  slowAnswerSuite(embeddedStore);
});

describe.skipIf(!javaPresent)('on DynamoDB Local', () => {
  slowAnswerSuite(dynamoDbLocalStore);
});
