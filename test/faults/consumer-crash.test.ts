/**
 * The change records' consumer killed half-way through a batch (docs/contract.md "History and events": each
 * committed change yields exactly one record; docs/architecture.md "Change records"). `npm start` runs with the
 * crash hook armed at `after PutItem` on the history table: the first record of a batch of PATCHes is
 * committed, then the process dies with SIGKILL, before the others and before the mapping's checkpoint.
 * After the restart the mapping delivers the batch again: the history holds every committed change exactly once,
 * numbered without gaps, a continuous chain up to the entry. Killed again right after its first append to the
 * events feed committed (`after TransactWriteItems`, before the bus): the replay appends no event twice, and
 * listEvents lists each of the pet's events once, in sequence order.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLocalDynamoDb } from 'local-aws';
import { crashHookUrl, dynamoDbClient, temporaryDir } from 'local-aws/testing';
import { expect, test, vi } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { callApi, type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const apiKey = generateApiKey();
const servers: ServerProcess[] = [];
cleanUpAfterAll(() => Promise.all(servers.map((server) => server.stop('SIGKILL'))));

/** `npm start` on `dataDir` with the test's key and `variables`. */
async function startServer(dataDir: string, variables: Record<string, string> = {}) {
  const server = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey, ...variables });
  servers.push(server);
  return server;
}

/** One API request with the test's key (see `callApi`). */
const call = (server: ServerProcess, method: string, path: string, body?: string) =>
  callApi(server, apiKey, method, path, body);

/** The history records of `petId` in the store of `dataDir` (no server running): sequence -> quantity.to. */
async function storedHistory(dataDir: string, petId: string): Promise<Map<number, string>> {
  const store = await connectLocalDynamoDb(dataDir);
  const client = dynamoDbClient(store.endpoint, store.credentials);
  try {
    const items = await scanTable(client, testTableNames.inventoryHistory);
    return new Map(
      items
        .filter((item) => item.petId?.N === petId)
        .map((item) => [Number(item.sequence?.N), item.quantity?.M?.to?.N as string]),
    );
  } finally {
    client.destroy();
    await store.close();
  }
}

/** How long the suite waits for what the event path writes after a write's answer or a restart. */
const eventPathMs = 20_000;

/** The history listInventoryHistory answers, once it holds `count` records (fails after {@link eventPathMs}). */
function historyOf(server: ServerProcess, petId: string, count: number) {
  return vi.waitFor(
    async () => {
      const { status, text } = await call(server, 'GET', `/inventory/${petId}/history?limit=1000`);
      expect(status, text).toBe(200);
      const changes = JSON.parse(text) as {
        sequence: number;
        reason: string;
        quantity: { from: number | null; to: number };
      }[];
      expect(changes.length, text).toBeGreaterThanOrEqual(count);
      return changes;
    },
    { timeout: eventPathMs, interval: 100 },
  );
}

/** The ids of `petId`'s events that listEvents answers, once it lists `count` (fails after {@link eventPathMs}). */
function listedEvents(server: ServerProcess, petId: string, count: number): Promise<string[]> {
  return vi.waitFor(
    async () => {
      const { text } = await call(server, 'GET', '/events?type=inventory.changed&limit=1000');
      const listed = (JSON.parse(text) as { id: string }[])
        .map((event) => event.id)
        .filter((id) => id.startsWith(`inventory.${petId}.`));
      expect(listed.length, text).toBeGreaterThanOrEqual(count);
      return listed;
    },
    { timeout: eventPathMs, interval: 100 },
  );
}

/**
 * `npm start` on a new data folder with the crash hook at `crashAt`, armed once the file `armed` exists
 * (local-aws/testing/crash-hook.ts).
 */
async function crashingServer(crashAt: string) {
  const dir = await temporaryDir('consumer-crash-');
  const dataDir = join(dir, 'data');
  const armed = join(dir, 'armed');
  const crashing = await startServer(dataDir, {
    NODE_OPTIONS: `--import=${crashHookUrl}`,
    CRASH_AT: crashAt,
    CRASH_ARMED: armed,
  });
  return { dataDir, armed, crashing };
}

/**
 * PATCHes `petId` to the quantities 1 to `count` on the armed `server`, then waits until the hook has killed it
 * (it stops answering) and asserts it died by SIGKILL. Returns the quantities answered 200.
 */
async function patchUntilKilled(server: ServerProcess, petId: string, count: number): Promise<number[]> {
  const answered: number[] = [];
  for (let quantity = 1; quantity <= count; quantity++) {
    const { status } = await call(server, 'PATCH', `/inventory/${petId}`, `{"quantity": ${quantity}}`);
    if (status === 200) answered.push(quantity);
  }
  // The batch reaches the consumer and the hook kills the process: it stops answering.
  await vi.waitFor(async () => expect((await call(server, 'GET', '/inventory')).status).toBe(0), {
    timeout: 30_000,
    interval: 100,
  });
  expect((await server.stop('SIGTERM', 20_000)).signal).toBe('SIGKILL');
  return answered;
}

/**
 * The quantity of `petId`'s entry on the restarted `server`: the PATCHes, sent one at a time, answered are the
 * first ones, and the one in flight when the process died may have committed without its answer (a loaded
 * machine), so the entry holds the last answered quantity or the next one.
 */
async function committedQuantity(server: ServerProcess, petId: string, answered: number[]) {
  const entry = JSON.parse((await call(server, 'GET', `/inventory/${petId}`)).text) as { quantity: number };
  expect(answered).toStrictEqual(answered.map((_, index) => index + 1));
  expect([answered.length, answered.length + 1]).toContain(entry.quantity);
  return entry.quantity;
}

test('a consumer killed after the first record of a batch: the replay writes every record once, gap-free', async () => {
  const { dataDir, armed, crashing } = await crashingServer(
    `after PutItem ${testTableNames.inventoryHistory}`,
  );
  const petId = '700';
  expect(
    (await call(crashing, 'POST', '/pets', `{"id": ${petId}, "name": "Crash", "status": "available"}`))
      .status,
  ).toBe(201);
  // The created record is written before the hook is armed.
  expect(await historyOf(crashing, petId, 1)).toHaveLength(1);
  await writeFile(armed, '');

  // Ten PATCHes within the mapping's batching window: one batch of ten records.
  const answered = await patchUntilKilled(crashing, petId, 10);

  // Half-way: the created record and the batch's first, not the other nine.
  const afterCrash = await storedHistory(dataDir, petId);
  expect([...afterCrash.keys()].sort((a, b) => a - b)).toStrictEqual([1, 2]);
  expect(afterCrash.get(2)).toBe(String(answered[0]));

  const server = await startServer(dataDir);
  const quantity = await committedQuantity(server, petId, answered);
  // Every committed change is in the history once.
  const committed = Array.from({ length: quantity }, (_, index) => index + 1);
  const changes = await historyOf(server, petId, 1 + committed.length);
  const oldestFirst = [...changes].reverse();
  expect(oldestFirst.map((change) => change.sequence)).toStrictEqual(
    oldestFirst.map((_, index) => index + 1),
  );
  expect(oldestFirst.map((change) => change.quantity.to)).toStrictEqual([0, ...committed]);
  expect(oldestFirst.map((change) => change.quantity.from)).toStrictEqual([
    null,
    0,
    ...committed.slice(0, -1),
  ]);
  expect(changes[0]?.quantity.to).toBe(quantity);
  // The replay wrote no record twice: a marker change's record comes after any record of the replay (records
  // follow commit order per pet), and the history is then the changes above and the marker's.
  const marker = quantity + 100;
  expect((await call(server, 'PATCH', `/inventory/${petId}`, `{"quantity": ${marker}}`)).status).toBe(200);
  const withMarker = await historyOf(server, petId, changes.length + 1);
  expect(withMarker[0]).toMatchObject({
    sequence: changes.length + 1,
    quantity: { from: quantity, to: marker },
  });
  expect(withMarker.slice(1)).toStrictEqual(changes);
});

/** The events feed's items of `petId` in the store of `dataDir` (no server running): their ids, by position. */
async function storedFeed(dataDir: string, petId: string): Promise<string[]> {
  const store = await connectLocalDynamoDb(dataDir);
  const client = dynamoDbClient(store.endpoint, store.credentials);
  try {
    const items = await scanTable(client, testTableNames.events);
    return items
      .filter((item) => item.id?.S?.startsWith(`inventory.${petId}.`))
      .sort((a, b) => Number(BigInt(a.position?.N ?? 0) - BigInt(b.position?.N ?? 0)))
      .map((item) => item.id?.S as string);
  } finally {
    client.destroy();
    await store.close();
  }
}

test('a consumer killed after appending a batch to the events feed: the replay appends none again', async () => {
  // The consumer's appends to the feed are its transactions on the events table (a PATCH's own transaction
  // writes the inventory table): the first one after arming is the batch's.
  const { dataDir, armed, crashing } = await crashingServer(
    `after TransactWriteItems ${testTableNames.events}`,
  );
  const petId = '701';
  expect(
    (await call(crashing, 'POST', '/pets', `{"id": ${petId}, "name": "Feed", "status": "available"}`)).status,
  ).toBe(201);
  expect(await historyOf(crashing, petId, 1)).toHaveLength(1);
  expect(await listedEvents(crashing, petId, 1)).toStrictEqual([`inventory.${petId}.1`]);
  await writeFile(armed, '');

  const answered = await patchUntilKilled(crashing, petId, 5);
  const ids = (last: number) => Array.from({ length: last }, (_, index) => `inventory.${petId}.${index + 1}`);
  // The append committed before the kill: the feed already holds the batch (the bus does not).
  const afterCrash = await storedFeed(dataDir, petId);
  expect(afterCrash.slice(0, 2)).toStrictEqual(ids(2));
  expect(afterCrash.length).toBeGreaterThan(1);

  const server = await startServer(dataDir);
  const changes = 1 + (await committedQuantity(server, petId, answered));
  await historyOf(server, petId, changes);
  expect(await listedEvents(server, petId, changes)).toStrictEqual(ids(changes));
  // The replay appended no event twice: a marker change's event is appended after any event of the replay (the
  // feed follows commit order per pet), and the feed then holds the changes above and the marker's.
  expect((await call(server, 'PATCH', `/inventory/${petId}`, '{"quantity": 1000}')).status).toBe(200);
  expect(await listedEvents(server, petId, changes + 1)).toStrictEqual(ids(changes + 1));
  await server.stop('SIGTERM', 20_000);
  expect(await storedFeed(dataDir, petId)).toStrictEqual(ids(changes + 1));
});
