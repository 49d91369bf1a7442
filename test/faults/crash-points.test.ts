/**
 * Crash points (docs/architecture.md "Crash points"; docs/contract.md "Store orders", "Bounded cost, clean
 * shutdown"): each write operation is killed with SIGKILL at each step that matters (before the DynamoDB
 * request, after it and before the answer, mid-transaction in the embedded store) by the preloaded
 * local-aws/testing/crash-hook.ts; then the server restarts on the same data folder, the client retries as a client
 * would, and the tables must hold exactly what the acknowledged requests say.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { dataFolderCredentials } from 'local-aws';
import { crashHookUrl, temporaryDir } from 'local-aws/testing';
import { describe, expect, test } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { samTableNames } from '#local/sam-fixtures.ts';
import {
  type ChildResult,
  childEnv,
  projectRoot,
  runNode,
  scripts,
  spawnNode,
} from '#test/support/child-process.ts';
import type { RawItem } from '#test/support/raw-tables.ts';
import { callServer, exactJson, stockOf, storeTable } from '#test/support/server-calls.ts';
import { type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';

const apiKey = generateApiKey();
const servers: ServerProcess[] = [];
cleanUpAfterAll(() => Promise.all(servers.map((server) => server.stop('SIGKILL'))));

/** A crash run: its data folder, and the variables that arm the hook at `crashAt` once `arm()` is called. */
async function crashRun(crashAt: string) {
  const dir = await temporaryDir('crash-points-');
  const armedFile = join(dir, 'armed');
  return {
    dataDir: join(dir, 'data'),
    hookVariables: { NODE_OPTIONS: `--import=${crashHookUrl}`, CRASH_AT: crashAt, CRASH_ARMED: armedFile },
    arm: () => writeFile(armedFile, ''),
  };
}

/** `npm start` on `dataDir` with the test's key, and `variables` (the hook's, for the run that crashes). */
async function startServer(dataDir: string, variables: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey, ...variables });
  servers.push(server);
  return server;
}

/** One API request with the test's key: status and body as JSON (undefined when empty). */
async function call(server: ServerProcess, method: string, path: string, body?: unknown, headers = {}) {
  const { status, body: json } = await callServer(server, apiKey, method, path, body, headers);
  return { status, body: json };
}

/**
 * Asserts that the list the API serves (the store's index) shows exactly the inventory table's stock: a crash
 * left no index entry disagreeing with its item.
 */
async function expectListMatchesTable(server: ServerProcess, dataDir: string): Promise<void> {
  const response = await fetch(`${server.baseUrl}/inventory`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  const listed = exactJson(await response.text()) as {
    petId: number | string;
    quantity: number;
    status: string;
  }[];
  const fromList = Object.fromEntries(
    listed.map((entry) => [String(entry.petId), `${entry.quantity} ${entry.status}`]),
  );
  expect(fromList).toStrictEqual(stockOf(await storeTable(dataDir, 'inventory')));
}

/** How long a client keeps retrying: past the killed request's deadline (the function's 10 s timeout). */
const retryForMs = 30_000;

/**
 * Sends `request` again, as a client would, while the answer is a 5xx or 409 `conflict` (the killed request's
 * idempotency record is in progress until its function's deadline), for at most {@link retryForMs}.
 */
async function retried(request: () => Promise<Awaited<ReturnType<typeof call>>>) {
  const deadline = Date.now() + retryForMs;
  for (;;) {
    const answer = await request();
    const again = answer.status >= 500 || (answer.status === 409 && answer.body?.code === 'conflict');
    if (!again || Date.now() > deadline) return answer;
    await setTimeout(500);
  }
}

/**
 * Starts a server armed to crash at `crashAt`, sends `request` (which must never be answered: the process dies
 * with SIGKILL), restarts on the same data folder and returns the new server and the stock before the crash.
 */
async function crashDuring(crashAt: string, request: (server: ServerProcess) => Promise<unknown>) {
  const run = await crashRun(crashAt);
  const crashing = await startServer(run.dataDir, run.hookVariables);
  const before = stockOf(await storeTable(run.dataDir, 'inventory'));
  await run.arm();
  await expect(request(crashing)).rejects.toThrow('fetch failed');
  expect((await crashing.stop()).signal).toBe('SIGKILL');
  const server = await startServer(run.dataDir);
  return { server, dataDir: run.dataDir, before };
}

describe('crash points', () => {
  // Each pair side by side: each test has its own data folder and servers.
  test.concurrent.each([
    ['before', 'before TransactWriteItems pet-store-inventory'],
    ['after', 'after TransactWriteItems pet-store-inventory'],
  ])(
    'updateInventory killed %s its transaction: the repeated PATCH lands once, nothing else changes',
    async (_, crashAt) => {
      const patch = (server: ServerProcess) => call(server, 'PATCH', '/inventory/3', { quantity: 7 });
      const { server, dataDir, before } = await crashDuring(crashAt, patch);

      expect(await patch(server)).toStrictEqual({
        status: 200,
        body: { petId: 3, quantity: 7, status: 'available' },
      });
      expect(stockOf(await storeTable(dataDir, 'inventory'))).toStrictEqual({ ...before, 3: '7 available' });
      await expectListMatchesTable(server, dataDir);
    },
  );

  test.each([
    ['before the first batch', 'before BatchWriteItem pet-store-inventory'],
    ['after the first batch', 'after BatchWriteItem pet-store-inventory'],
  ])('the import tool killed %s: the re-run imports every row', async (_, crashAt) => {
    const run = await crashRun(crashAt);
    // A first start creates the tables; the tool then runs on the stopped server's store.
    await (await startServer(run.dataDir)).stop();
    const rows = Array.from({ length: 60 }, (_, i) => ({ petId: 1001 + i, quantity: i, status: 'pending' }));
    const file = join(run.dataDir, '..', 'rows.json');
    await writeFile(file, JSON.stringify(rows));
    const importFile = (variables: Record<string, string>): Promise<ChildResult> =>
      runNode(scripts.import, [file], { env: childEnv({ DATA_DIR: run.dataDir, ...variables }) });

    await run.arm();
    expect((await importFile(run.hookVariables)).signal).toBe('SIGKILL');
    expect(await importFile({})).toMatchObject({
      code: 0,
      stdout: `Imported 60 entries into local store ${run.dataDir}.\n`,
    });

    const server = await startServer(run.dataDir);
    const imported = Object.fromEntries(rows.map((row) => [String(row.petId), `${row.quantity} pending`]));
    const inventory = stockOf(await storeTable(run.dataDir, 'inventory'));
    expect(inventory).toMatchObject(imported);
    expect(Object.keys(inventory)).toHaveLength(24 + 60);
    await expectListMatchesTable(server, run.dataDir);
  });

  test.concurrent.each([
    { when: 'before', crashAt: 'before TransactWriteItems pet-store-inventory', status: 201 },
    { when: 'after', crashAt: 'after TransactWriteItems pet-store-inventory', status: 409 },
  ])(
    'addPet killed $when its transaction: the repeat answers $status and the pet exists once',
    async ({ crashAt, status }) => {
      const pet = { id: 500, name: 'Nemo', status: 'available' };
      const addPet = (server: ServerProcess) => call(server, 'POST', '/pets', pet);
      const { server, dataDir, before } = await crashDuring(crashAt, addPet);

      expect((await addPet(server)).status).toBe(status);
      expect(await call(server, 'GET', '/pets/500')).toStrictEqual({
        status: 200,
        body: { id: 500, name: 'Nemo', photoUrls: [], tags: [], status: 'available' },
      });
      expect(stockOf(await storeTable(dataDir, 'inventory'))).toStrictEqual({
        ...before,
        500: '0 available',
      });
      await expectListMatchesTable(server, dataDir);
    },
  );

  test.concurrent("updateInventory with an Idempotency-Key killed after its transaction, then another client's change: the keyed retry answers the entry as it now is, applied once", {
    timeout: 90_000,
  }, async () => {
    const patch = (server: ServerProcess) =>
      call(server, 'PATCH', '/inventory/3', { quantity: 7 }, { 'Idempotency-Key': 'crash-point-patch' });
    const { server, dataDir, before } = await crashDuring(
      'after TransactWriteItems pet-store-inventory',
      patch,
    );
    expect((await call(server, 'PATCH', '/inventory/3', { quantity: 8 })).status).toBe(200);

    expect(await retried(() => patch(server))).toStrictEqual({
      status: 200,
      body: { petId: 3, quantity: 8, status: 'available' },
    });
    expect(stockOf(await storeTable(dataDir, 'inventory'))).toStrictEqual({ ...before, 3: '8 available' });
  });

  test.concurrent("updateInventory adjustBy with an Idempotency-Key killed after its transaction, then another client's adjustment: the keyed retry answers the entry as it now is, applied once", {
    timeout: 90_000,
  }, async () => {
    const sale = (server: ServerProcess) =>
      call(
        server,
        'PATCH',
        '/inventory/4',
        { adjustBy: -2, reason: 'sale' },
        { 'Idempotency-Key': 'crash-sale' },
      );
    const { server, dataDir, before } = await crashDuring(
      'after TransactWriteItems pet-store-inventory',
      sale,
    );
    const [stock, status] = (before[4] as string).split(' ');
    expect((await call(server, 'PATCH', '/inventory/4', { adjustBy: 100 })).status).toBe(200);
    const now = Number(stock) - 2 + 100;

    expect(await retried(() => sale(server))).toStrictEqual({
      status: 200,
      body: { petId: 4, quantity: now, status },
    });
    expect(stockOf(await storeTable(dataDir, 'inventory'))).toStrictEqual({
      ...before,
      4: `${now} ${status}`,
    });
  });

  test.concurrent("addPet without id with an Idempotency-Key killed after its transaction, then another client's change: the keyed retry answers 201 with the pet created, one pet", {
    timeout: 90_000,
  }, async () => {
    const pet = { name: 'Crash Dory', status: 'available' };
    const addPet = (server: ServerProcess) =>
      call(server, 'POST', '/pets', pet, { 'Idempotency-Key': 'crash-point-pet' });
    const { server, dataDir } = await crashDuring('after TransactWriteItems pet-store-inventory', addPet);
    const named = async () =>
      (await storeTable(dataDir, 'inventory'))
        .filter((item) => item.name?.S === pet.name)
        .map((item) => item.petId?.N);
    const [id] = await named();
    expect((await call(server, 'PATCH', `/inventory/${id}`, { quantity: 5 })).status).toBe(200);

    const retry = await retried(() => addPet(server));
    expect(retry).toStrictEqual({
      status: 201,
      body: { id: retry.body.id, ...pet, photoUrls: [], tags: [] },
    });
    expect(String(retry.body.id)).toBe(id);
    expect(await named()).toStrictEqual([id]);
    expect(stockOf(await storeTable(dataDir, 'inventory'))[id as string]).toBe('5 available');
  });

  test("batchUpdateInventory with ifMatch killed after its transaction, before the answer, then another client's change: the retry with its Idempotency-Key answers the first answer, applied once", {
    timeout: 90_000,
  }, async () => {
    const crashAt = 'after TransactWriteItems pet-store-inventory';
    const changes = [
      { petId: 3, quantity: 40, reason: 'arrival', ifMatch: '"25-available"' },
      { petId: 6, status: 'pending', ifMatch: '*' },
    ];
    const batch = (server: ServerProcess) =>
      call(server, 'POST', '/inventory/batch', { changes }, { 'Idempotency-Key': 'crash-point-batch' });
    const { server, dataDir, before } = await crashDuring(crashAt, batch);
    // Another client changes an entry of the batch before the retry: the retry must neither apply again nor
    // take the change for a refusal of its ifMatch.
    expect((await call(server, 'PATCH', '/inventory/3', { quantity: 41 })).status).toBe(200);

    const retry = await retried(() => batch(server));
    const quantityOf6 = Number(before[6]?.split(' ')[0]);
    expect(retry).toStrictEqual({
      status: 200,
      body: {
        items: [
          { petId: 3, quantity: 40, status: 'available', etag: '"40-available"' },
          { petId: 6, quantity: quantityOf6, status: 'pending', etag: `"${quantityOf6}-pending"` },
        ],
      },
    });
    expect(stockOf(await storeTable(dataDir, 'inventory'))).toStrictEqual({
      ...before,
      3: '41 available',
      6: `${quantityOf6} pending`,
    });
    await expectListMatchesTable(server, dataDir);
  });

  // Side by side: each waits for the killed request's idempotency record to expire (its function's deadline).
  test.concurrent.each([
    ['before its transaction', 'before TransactWriteItems'],
    ['mid-transaction in the embedded store', 'mid TransactWriteItems'],
    ['after its transaction, before the answer', 'after TransactWriteItems'],
  ])(
    'placeOrder killed %s: the retry with its Idempotency-Key gets one order, the stock fell by its quantity',
    { timeout: 90_000 },
    async (_, crashAt) => {
      const order = { petId: 3, quantity: 2 };
      const placeOrder = (server: ServerProcess) =>
        call(server, 'POST', '/store/orders', order, { 'Idempotency-Key': 'crash-point-order' });
      const { server, dataDir, before } = await crashDuring(crashAt, placeOrder);

      const retry = await retried(() => placeOrder(server));
      expect(retry).toMatchObject({ status: 201, body: { ...order, status: 'placed', complete: false } });
      const orders = await storeTable(dataDir, 'orders');
      expect(orders.map((item) => [item.orderId?.N, item.petId?.N, item.quantity?.N])).toStrictEqual([
        [String(retry.body.id), '3', '2'],
      ]);
      expect(stockOf(await storeTable(dataDir, 'inventory'))).toStrictEqual({ ...before, 3: '23 available' });
      await expectListMatchesTable(server, dataDir);
    },
  );

  test('a PutItem killed between its index entry and its item: the restarted store holds both', async () => {
    const run = await crashRun('mid PutItem pet-store-sam-inventory');
    const { inventory } = samTableNames();
    const started = await startSamDynamoDb(run.dataDir, run.hookVariables);
    const pet = {
      petId: { N: '88' },
      quantity: { N: '4' },
      status: { S: 'available' },
      listShard: { N: '0' },
    };
    await run.arm();

    await expect(
      started.client.send(new PutItemCommand({ TableName: inventory, Item: pet })),
    ).rejects.toThrow();
    expect((await started.exited).signal).toBe('SIGKILL');
    const restarted = await startSamDynamoDb(run.dataDir);

    const stored = await restarted.client.send(
      new GetItemCommand({ TableName: inventory, Key: { petId: pet.petId }, ConsistentRead: true }),
    );
    const indexed = await restarted.client.send(
      new QueryCommand({
        TableName: inventory,
        IndexName: 'byPetId',
        KeyConditionExpression: 'listShard = :shard AND petId = :petId',
        ExpressionAttributeValues: { ':shard': pet.listShard, ':petId': pet.petId },
      }),
    );
    expect(stored.Item).toStrictEqual(pet);
    expect(indexed.Items).toStrictEqual([pet]);
  });

  test.concurrent.each([
    { when: 'after its first action is decided', crashAt: 'mid TransactWriteItems', lands: false },
    { when: 'after its commit, before its answer', crashAt: 'after TransactWriteItems', lands: true },
  ])(
    'a TransactWriteItems killed $when: the restarted store holds all of it or none',
    async ({ crashAt, lands }) => {
      const run = await crashRun(crashAt);
      const names = samTableNames();
      const started = await startSamDynamoDb(run.dataDir, run.hookVariables);
      const pet = { petId: { N: '77' }, quantity: { N: '5' }, status: { S: 'available' } };
      const order = { orderId: { N: '1' }, petId: { N: '77' }, quantity: { N: '2' } };
      await started.client.send(new PutItemCommand({ TableName: names.inventory, Item: pet }));
      await run.arm();

      await expect(
        started.client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                Update: {
                  TableName: names.inventory,
                  Key: { petId: pet.petId },
                  UpdateExpression: 'SET quantity = quantity - :n',
                  ConditionExpression: 'quantity >= :n',
                  ExpressionAttributeValues: { ':n': { N: '2' } },
                },
              },
              { Put: { TableName: names.orders, Item: order } },
            ],
          }),
        ),
      ).rejects.toThrow();
      expect((await started.exited).signal).toBe('SIGKILL');
      const restarted = await startSamDynamoDb(run.dataDir);
      const item = async (TableName: string, Key: RawItem) =>
        (await restarted.client.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }))).Item;

      expect(await item(names.inventory, { petId: pet.petId })).toStrictEqual({
        ...pet,
        quantity: { N: lands ? '3' : '5' },
      });
      expect(await item(names.orders, { orderId: order.orderId })).toStrictEqual(lands ? order : undefined);
    },
  );
});

/**
 * `npm run sam:dynamodb` on `dataDir` (the embedded store alone) with `variables`, and a client on it with the
 * store's credentials and no retries.
 */
async function startSamDynamoDb(dataDir: string, variables: Record<string, string> = {}) {
  const args = ['--port', '0', '--data-dir', dataDir];
  const { child, output, exited } = spawnNode(scripts.samDynamoDb, args, childEnv(variables), projectRoot);
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      const match = /DynamoDB for the SAM CLI at (\S+)[^\n]*\n[^\n]*seeded/.exec(output.stdout);
      if (match) resolve(match[1] as string);
    });
    void exited.then(() => reject(new Error(`sam:dynamodb exited: ${output.stdout}${output.stderr}`)));
  });
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: await dataFolderCredentials(dataDir),
    maxAttempts: 1,
  });
  cleanUpAfterAll(async () => {
    client.destroy();
    child.kill('SIGKILL');
    await exited;
  });
  return { client, exited };
}
