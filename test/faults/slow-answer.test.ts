/**
 * Slow answers (docs/contract.md "Exactly once under retries"; docs/architecture.md "Slow answers"): the store
 * commits a write and answers it only after the SDK's request timeout (test/support/slow-answer-hook.ts,
 * preloaded into `npm start`), so the service's DynamoDB client sends the write again as configured
 * (lib/clients/dynamodb-client.ts). For each write the client must get the answer of one application, and the
 * tables (items, orders, stock, change records) must hold exactly one application of the request.
 */

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { temporaryDir } from '@pet-store/local-aws/testing';
import { beforeAll, describe, expect, test } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { callServer, stockOf, storeTable } from '#test/support/server-calls.ts';
import { type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { runningStore, storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';

const hook = pathToFileURL(join(import.meta.dirname, '../support/slow-answer-hook.ts')).href;
const apiKey = generateApiKey();
const inventory = testTableNames.inventory;

let server: ServerProcess;
let dataDir: string;
let armedFile: string;
cleanUpAfterAll(() => server?.stop('SIGKILL'));

beforeAll(async () => {
  const dir = await temporaryDir('slow-answer-');
  dataDir = join(dir, 'data');
  armedFile = join(dir, 'armed');
  server = await startServerProcess({
    DATA_DIR: dataDir,
    API_KEY: apiKey,
    NODE_OPTIONS: `--import=${hook}`,
    SLOW_ARMED: armedFile,
  });
}, 60_000);

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  callServer(server, apiKey, method, path, body, headers);

/** Runs `write` with the store's answer to the first `slowWrite` (`<Operation> [<TableName>]`) held late. */
async function slowly<T>(slowWrite: string, write: () => Promise<T>): Promise<T> {
  await writeFile(armedFile, slowWrite);
  const result = await write();
  // The hook removes the file as the write matches: the slow answer did happen.
  expect(existsSync(armedFile), `${slowWrite} was never written`).toBe(false);
  return result;
}

/** Adds pet `id` (201) and sets its stock to `quantity` (200), both answered at once. */
async function stockedPet(id: number, quantity: number): Promise<void> {
  expect((await call('POST', '/pets', { id, name: `Pet ${id}`, status: 'available' })).status).toBe(201);
  expect((await call('PATCH', `/inventory/${id}`, { quantity, reason: 'arrival' })).status).toBe(200);
}

/** How long the change records of a write may take in this suite (the contract's 5 s, with room for load). */
const recordsWithinMs = 20_000;

/**
 * The change records of `petId`, oldest first, as `<reason> <quantity.from>><quantity.to>`, once a last change
 * made here (a PATCH to quantity 999, reason `return`) is recorded: records follow commit order per pet, so
 * every record of an earlier write is there by then; that last record is left out.
 */
async function changesOf(petId: number): Promise<string[]> {
  expect((await call('PATCH', `/inventory/${petId}`, { quantity: 999, reason: 'return' })).status).toBe(200);
  const deadline = Date.now() + recordsWithinMs;
  for (;;) {
    const { status, body } = await call('GET', `/inventory/${petId}/history?limit=1000`);
    expect(status).toBe(200);
    const records = (body as { reason: string; quantity: { from: number | null; to: number } }[])
      .map(({ reason, quantity }) => `${reason} ${quantity.from}>${quantity.to}`)
      .reverse();
    if (records.at(-1)?.startsWith('return ') && records.at(-1)?.endsWith('>999'))
      return records.slice(0, -1);
    expect(Date.now(), `records of ${petId}: ${JSON.stringify(records)}`).toBeLessThan(deadline);
    await setTimeout(100);
  }
}

/** The orders of `petId` in the orders table: `orderId quantity status`. */
async function ordersOf(petId: number): Promise<string[]> {
  const orders = await storeTable(dataDir, 'orders');
  return orders
    .filter((item) => item.petId?.N === String(petId))
    .map((item) => `${item.orderId?.N} ${item.quantity?.N} ${item.status?.S}`);
}

/** The stock of `petId` as the inventory table holds it: `quantity status`. */
async function stockOfPet(petId: number): Promise<string | undefined> {
  return stockOf(await storeTable(dataDir, 'inventory'))[String(petId)];
}

describe('a write answered after the SDK request timeout is applied once and answered as applied', () => {
  test('PATCH with If-Match: 200 with the new entry, never 412, one change record', async () => {
    await stockedPet(701, 10);
    const answer = await slowly(`UpdateItem ${inventory}`, () =>
      call('PATCH', '/inventory/701', { quantity: 4 }, { 'If-Match': '"10-available"' }),
    );
    expect([answer.status, answer.body, answer.headers.get('etag')]).toStrictEqual([
      200,
      { petId: 701, quantity: 4, status: 'available' },
      '"4-available"',
    ]);
    expect(await stockOfPet(701)).toBe('4 available');
    expect(await changesOf(701)).toStrictEqual(['created null>0', 'arrival 0>10', 'adjustment 10>4']);
  });

  test('PATCH without If-Match: 200 with the new entry, one change record', async () => {
    await stockedPet(702, 10);
    const answer = await slowly(`UpdateItem ${inventory}`, () =>
      call('PATCH', '/inventory/702', { quantity: 5, reason: 'arrival' }),
    );
    expect([answer.status, answer.body]).toStrictEqual([
      200,
      { petId: 702, quantity: 5, status: 'available' },
    ]);
    expect(await stockOfPet(702)).toBe('5 available');
    expect(await changesOf(702)).toStrictEqual(['created null>0', 'arrival 0>10', 'arrival 10>5']);
  });

  test('addPet with id: 201 with the pet, not 409 for its own write; one pet, one change record', async () => {
    const pet = { id: 703, name: 'Slow Nemo', status: 'available' };
    const answer = await slowly(`PutItem ${inventory}`, () => call('POST', '/pets', pet));
    expect([answer.status, answer.body, answer.headers.get('location')]).toStrictEqual([
      201,
      { ...pet, photoUrls: [], tags: [] },
      '/v1/pets/703',
    ]);
    expect(await stockOfPet(703)).toBe('0 available');
    expect(await changesOf(703)).toStrictEqual(['created null>0']);
  });

  test('addPet without id: 201 with the assigned id, and exactly one pet created', async () => {
    const pet = { name: 'Slow Dory', status: 'pending' };
    const answer = await slowly(`PutItem ${inventory}`, () => call('POST', '/pets', pet));
    expect(answer.status).toBe(201);
    const id = String(answer.body.id);
    expect(answer.body).toStrictEqual({ id: answer.body.id, ...pet, photoUrls: [], tags: [] });
    expect(answer.headers.get('location')).toBe(`/v1/pets/${id}`);
    const named = (await storeTable(dataDir, 'inventory')).filter((item) => item.name?.S === pet.name);
    expect(named.map((item) => item.petId?.N)).toStrictEqual([id]);
  });

  test('placeOrder without Idempotency-Key: 201, one order, the stock falls once', async () => {
    await stockedPet(704, 10);
    const answer = await slowly('TransactWriteItems', () =>
      call('POST', '/store/orders', { petId: 704, quantity: 3 }),
    );
    expect([answer.status, answer.body]).toStrictEqual([
      201,
      { id: answer.body.id, petId: 704, quantity: 3, status: 'placed', complete: false },
    ]);
    expect(await ordersOf(704)).toStrictEqual([`${answer.body.id} 3 placed`]);
    expect(await stockOfPet(704)).toBe('7 available');
    expect(await changesOf(704)).toStrictEqual(['created null>0', 'arrival 0>10', 'order_placed 10>7']);
  });

  test.each([
    ['its idempotency record', `PutItem ${testTableNames.idempotency}`, 705],
    ['its transaction', 'TransactWriteItems', 706],
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
    'batchUpdateInventory %s, its transaction answered late: 200 with the entries, never 412; one change record each',
    async (_, petId, precondition, headers) => {
      await stockedPet(petId, 10);
      await stockedPet(petId + 1, 10);
      const changes = [
        { petId, quantity: 30, reason: 'arrival', ...precondition },
        { petId: petId + 1, status: 'pending', ...precondition },
      ];
      const answer = await slowly('TransactWriteItems', () =>
        call('POST', '/inventory/batch', { changes }, headers),
      );
      expect([answer.status, answer.body]).toStrictEqual([
        200,
        {
          items: [
            { petId, quantity: 30, status: 'available', etag: '"30-available"' },
            { petId: petId + 1, quantity: 10, status: 'pending', etag: '"10-pending"' },
          ],
        },
      ]);
      expect(await stockOfPet(petId)).toBe('30 available');
      expect(await stockOfPet(petId + 1)).toBe('10 pending');
      expect(await changesOf(petId)).toStrictEqual(['created null>0', 'arrival 0>10', 'arrival 10>30']);
      expect(await changesOf(petId + 1)).toStrictEqual([
        'created null>0',
        'arrival 0>10',
        'adjustment 10>10',
      ]);
    },
  );

  test('updateOrder cancel: 200 cancelled, the stock returned once', async () => {
    await stockedPet(707, 10);
    const placed = await call('POST', '/store/orders', { petId: 707, quantity: 4 });
    expect(placed.status).toBe(201);
    const answer = await slowly('TransactWriteItems', () =>
      call('PATCH', `/store/orders/${placed.body.id}`, { status: 'cancelled' }),
    );
    expect([answer.status, answer.body]).toStrictEqual([200, { ...placed.body, status: 'cancelled' }]);
    expect(await ordersOf(707)).toStrictEqual([`${placed.body.id} 4 cancelled`]);
    expect(await stockOfPet(707)).toBe('10 available');
    expect(await changesOf(707)).toStrictEqual([
      'created null>0',
      'arrival 0>10',
      'order_placed 10>6',
      'order_cancelled 6>10',
    ]);
  });

  test('updateOrder approve: 200 approved, one status change', async () => {
    await stockedPet(708, 10);
    const placed = await call('POST', '/store/orders', { petId: 708, quantity: 1 });
    expect(placed.status).toBe(201);
    const answer = await slowly(`UpdateItem ${testTableNames.orders}`, () =>
      call('PATCH', `/store/orders/${placed.body.id}`, { status: 'approved' }),
    );
    expect([answer.status, answer.body]).toStrictEqual([200, { ...placed.body, status: 'approved' }]);
    expect(await ordersOf(708)).toStrictEqual([`${placed.body.id} 1 approved`]);
  });

  test('the import tool: every row written once, one change record each', async () => {
    const rows = [
      { petId: 709, quantity: 5, status: 'available' },
      { petId: 710, quantity: 6, status: 'pending' },
    ];
    const file = join(dataDir, '..', 'rows.json');
    await writeFile(file, JSON.stringify(rows));
    const store = await runningStore(dataDir);
    const result = await slowly(`BatchWriteItem ${inventory}`, () =>
      runNode(scripts.import, [file], { env: childEnv({ DATA_DIR: dataDir, ...storeVariables(store) }) }),
    );
    expect(result).toMatchObject({
      code: 0,
      stdout: `Imported 2 entries into DynamoDB at ${store.endpoint}.\n`,
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
    const endpoints = (await storeTable(dataDir, 'webhookSubscriptions')).filter(
      (item) => item.url?.S === url,
    );
    expect(endpoints.map((item) => item.subscriptionId?.S)).toStrictEqual([answer.body.id]);
    const owners = await storeTable(dataDir, 'webhookEndpointOwners');
    expect(owners.map((item) => item.endpointIds?.SS)).toStrictEqual([[answer.body.id]]);
  });

  test('deleteWebhookEndpoint: 204, never 404 for its own retry; the endpoint and its id gone', async () => {
    const created = await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/slow-delete' });
    expect(created.status).toBe(201);
    const answer = await slowly('TransactWriteItems', () =>
      call('DELETE', `/webhook-endpoints/${created.body.id}`),
    );
    expect(answer.status).toBe(204);
    const ids = (await storeTable(dataDir, 'webhookSubscriptions')).map((item) => item.subscriptionId?.S);
    expect(ids).not.toContain(created.body.id);
    const owners = await storeTable(dataDir, 'webhookEndpointOwners');
    expect(owners.flatMap((item) => item.endpointIds?.SS ?? [])).not.toContain(created.body.id);
  });
});
