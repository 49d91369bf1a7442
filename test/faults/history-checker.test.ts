/**
 * A history checker of updateInventory under late answers (docs/contract.md "Exactly once under retries";
 * docs/architecture.md "Writes exactly once", "Slow answers"): several writers PATCH a few entries at once,
 * each request with a quantity of its own, some with If-Match from their last answer, while a fault proxy
 * answers one TransactWriteItems attempt in four late, whichever the interleaving makes so (the store commits, the answer comes past the SDK's
 * request timeout, so the SDK sends the write again while the others write the same items). The inventory
 * table's change stream (NEW_AND_OLD_IMAGES: one record per committed write) is then the history to check:
 * every 200 applied exactly once, a 412 never, a 503 at most once, the writes of each entry one chain (no
 * lost update), the stored entry its last, and a 200 with If-Match applied on the state its ETag named.
 *
 * The same checker runs on the embedded store (its change stream) and on AWS's DynamoDB Local (the DynamoDB
 * Streams API on its endpoint). DynamoDB Local needs Java: when `java` is not on PATH that half is skipped,
 * with the reason printed, as test/fidelity/aws-dynamodb-local.test.ts does.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { lambdaContext, type StoreCredentials } from 'local-aws';
import { startTestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { type FaultProxy, startFaultProxy } from '#test/support/dynamodb-fault-proxy.ts';
import {
  type DynamoDbLocal,
  hasJava,
  startDynamoDbLocal,
  streamRecords,
} from '#test/support/dynamodb-local.ts';
import { updateInventoryEvent } from '#test/support/handler-suite.ts';
import type { ProxyHandler } from '#test/support/lambda-events.ts';
import { inventoryRecord, putItems, scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, setFunctionEnvironment, testTableNames } from '#test/support/test-dynamodb.ts';

const javaPresent = hasJava();
if (!javaPresent) {
  console.warn(
    'test/faults/history-checker.test.ts (DynamoDB Local half) skipped: `java` is not on PATH, and DynamoDB Local is a Java program.',
  );
}

/** The entries written, each starting at a quantity no request sends. */
const pets = ['1', '2', '3'];
/** Concurrent writers, and the PATCHes each sends one after the other. */
const writers = 6;
const requestsPerWriter = 5;
/** One TransactWriteItems attempt in this many is answered `late`. */
const lateEvery = 4;

/** One PATCH and its answer. */
interface Outcome {
  petId: string;
  quantity: number;
  /** The If-Match sent (the ETag of the writer's last 200 for this pet), if any. */
  ifMatch?: string;
  status: number;
}

/** One committed write of an entry, from its stream record: the quantity before (none for an INSERT) and after. */
interface Write {
  from?: number;
  to: number;
}

/** A store under test: its raw client, and the committed writes of each pet in commit order. */
interface Store {
  endpoint: string;
  credentials: StoreCredentials;
  client: DynamoDBClient;
  writesOf(): Promise<Map<string, Write[]>>;
  close(): Promise<void>;
}

/** The quantity of a stream image's `quantity` attribute, if any. */
function quantityOf(image: Record<string, unknown> | undefined): number | undefined {
  const value = (image?.quantity as { N?: string } | undefined)?.N;
  return value === undefined ? undefined : Number(value);
}

/** What the checker reads of a stream record (`dynamodb` of a record, either API's). */
interface ImageRecord {
  Keys?: Record<string, unknown>;
  OldImage?: Record<string, unknown>;
  NewImage?: Record<string, unknown>;
}

/** Groups stream records (in commit order) by petId into {@link Write}s. */
function writesByPet(records: readonly ImageRecord[]): Map<string, Write[]> {
  const writes = new Map<string, Write[]>();
  for (const { Keys, OldImage, NewImage } of records) {
    const petId = (Keys?.petId as { N?: string } | undefined)?.N;
    const to = quantityOf(NewImage);
    if (petId === undefined || to === undefined) continue;
    const from = quantityOf(OldImage);
    writes.set(petId, [...(writes.get(petId) ?? []), from === undefined ? { to } : { from, to }]);
  }
  return writes;
}

/** The embedded store with the service's tables; its writes from its change stream. */
async function embeddedStore(): Promise<Store> {
  const db = await startTestStore({ tables: serviceTables });
  return {
    ...db,
    writesOf: async () =>
      writesByPet(
        (await db.changeStream.read(testTableNames.inventory, undefined, 10_000)).map(
          (record) => record.dynamodb,
        ),
      ),
    close: () => db.close(),
  };
}

/** DynamoDB Local with the service's tables; its writes from the DynamoDB Streams API on its endpoint. */
async function dynamoDbLocalStore(): Promise<Store> {
  const local: DynamoDbLocal = await startDynamoDbLocal();
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const settings = { endpoint: local.endpoint, region: 'us-east-1', credentials };
  const client = new DynamoDBClient(settings);
  const streams = new DynamoDBStreamsClient(settings);
  await serviceTables(client);
  return {
    endpoint: local.endpoint,
    credentials,
    client,
    writesOf: async () =>
      writesByPet(
        (await streamRecords(streams, testTableNames.inventory)).map((record) => record.dynamodb ?? {}),
      ),
    close: async () => {
      client.destroy();
      streams.destroy();
      await local.close();
    },
  };
}

/**
 * Runs the writers against `patch` (updateInventory through `proxy`, which answers one TransactWriteItems attempt in
 * {@link lateEvery} late) and answers every PATCH's outcome.
 */
async function runWriters(proxy: FaultProxy, patch: ProxyHandler): Promise<Outcome[]> {
  let transactions = 0;
  proxy.fault = (operation) =>
    operation === 'TransactWriteItems' && ++transactions % lateEvery === 0 ? 'late' : 'pass';
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const etags = new Map<string, string>();
      for (let step = 0; step < requestsPerWriter; step++) {
        const petId = pets[(writer + Math.floor(step / 2)) % pets.length] as string;
        const quantity = 1000 + writer * 100 + step;
        const ifMatch = step % 2 === 1 ? etags.get(petId) : undefined;
        const headers = { 'Content-Type': 'application/json', ...(ifMatch ? { 'If-Match': ifMatch } : {}) };
        const event = updateInventoryEvent(petId, `{"quantity":${quantity}}`, headers);
        const answer = await patch(event, lambdaContext('updateInventory'));
        const etag = answer.headers?.ETag;
        if (answer.statusCode === 200 && typeof etag === 'string') etags.set(petId, etag);
        outcomes.push({ petId, quantity, ...(ifMatch ? { ifMatch } : {}), status: answer.statusCode });
      }
    }),
  );
  proxy.restore();
  return outcomes;
}

/** The checker: each assertion names the contract's rule it proves. */
async function checkHistory(store: Store, outcomes: Outcome[]): Promise<void> {
  const history = JSON.stringify(outcomes);
  expect(
    outcomes.map((o) => o.status).filter((s) => ![200, 412, 503].includes(s)),
    history,
  ).toEqual([]);
  const stored = new Map(
    (await scanTable(store.client, testTableNames.inventory)).map((item) => [
      (item.petId as { N: string }).N,
      Number((item.quantity as { N: string }).N),
    ]),
  );
  // The stream is read once it holds every pet's stored state as its last write.
  let writes = new Map<string, Write[]>();
  await expect
    .poll(
      async () => {
        writes = await store.writesOf();
        return pets.map((petId) => writes.get(petId)?.at(-1)?.to);
      },
      { timeout: 10_000 },
    )
    .toEqual(pets.map((petId) => stored.get(petId)));
  for (const petId of pets) {
    const chain = writes.get(petId) ?? [];
    const context = `pet ${petId}: writes ${JSON.stringify(chain)}; requests ${history}`;
    // (c) One serial order: each write starts from the one before (the first creates the entry).
    expect(chain[0]?.from, context).toBeUndefined();
    chain.slice(1).forEach((write, index) => {
      expect(write.from, context).toBe(chain[index]?.to);
    });
    // (d) The stored entry is the last write.
    expect(stored.get(petId), context).toBe(chain.at(-1)?.to);
    const applied = (quantity: number) => chain.filter((write) => write.to === quantity);
    for (const outcome of outcomes.filter((o) => o.petId === petId)) {
      const times = applied(outcome.quantity).length;
      if (outcome.status === 200) {
        // (a) Answered as applied: applied exactly once.
        expect(times, `${JSON.stringify(outcome)}; ${context}`).toBe(1);
        // (e) With If-Match: applied on the state its ETag named.
        if (outcome.ifMatch) {
          const [write] = applied(outcome.quantity);
          expect(`"${write?.from}-available"`, `${JSON.stringify(outcome)}; ${context}`).toBe(
            outcome.ifMatch,
          );
        }
      } else if (outcome.status === 412) {
        // A refused precondition writes nothing.
        expect(times, `${JSON.stringify(outcome)}; ${context}`).toBe(0);
      } else {
        // (b) 503: not known to be applied, and never applied twice.
        expect(times, `${JSON.stringify(outcome)}; ${context}`).toBeLessThanOrEqual(1);
      }
    }
    // No write but the entry's creation and the requests': nothing applied that no one sent.
    const sent = new Set(outcomes.filter((o) => o.petId === petId).map((o) => o.quantity));
    expect(
      chain.slice(1).filter((write) => !sent.has(write.to)),
      context,
    ).toEqual([]);
  }
  // The run met the fault it is about: some writes answered 200 (the checker is not vacuous).
  expect(
    outcomes.some((o) => o.status === 200),
    history,
  ).toBe(true);
}

/** Registers the checker on the store `start` makes, behind a fault proxy, with updateInventory imported on it. */
function historySuite(start: () => Promise<Store>): void {
  let store: Store;
  let proxy: FaultProxy;
  let patch: ProxyHandler;
  beforeAll(async () => {
    store = await start();
    proxy = await startFaultProxy(store.endpoint);
    setFunctionEnvironment(proxy.endpoint, store.credentials);
    process.env.IDEMPOTENCY_TABLE_NAME = testTableNames.idempotency;
    // Each half imports the handler afresh: the module reads its endpoint at import.
    vi.resetModules();
    patch = (await import('#functions/update-inventory/handler.ts')).handler;
    await putItems(
      store.client,
      testTableNames.inventory,
      pets.map((petId, index) => inventoryRecord(petId, index + 1, 'available')),
    );
  }, 90_000);
  afterAll(async () => {
    await proxy?.close();
    await store?.close();
  });

  test('concurrent PATCHes with late answers: every 200 applied once, 412 never, 503 at most once, one chain per entry', async () => {
    const outcomes = await runWriters(proxy, patch);
    await checkHistory(store, outcomes);
  }, 60_000);
}

describe('updateInventory history under late answers, on the embedded store', () => {
  historySuite(embeddedStore);
});

describe.skipIf(!javaPresent)('updateInventory history under late answers, on DynamoDB Local', () => {
  historySuite(dynamoDbLocalStore);
});
