/**
 * The import tool when DynamoDB fails (docs/contract.md "Operator tooling"): retries are bounded, the
 * tool then exits 1 within a bounded time saying how many entries it wrote and how to resume, never with a stack
 * trace, and running the same file again completes the import (each entry is a create-or-replace).
 *
 * The tool runs as a real child process against a real DynamoDB API (in-memory dynalite) reached through a
 * protocol-level fault proxy (test/support/dynamodb-fault-proxy.ts) that keeps answering BatchWriteItem with
 * every item unprocessed, as throttled DynamoDB does, or drops connections, as an unreachable one does, from a
 * chosen request on. What the tables hold is read from dynalite directly.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestStore, type TestStore, temporaryDir } from 'local-aws/testing';
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { maxAttempts } from '#lib/clients/dynamodb.ts';
import { maxBatchAttempts } from '#lib/inventory/batch-put.ts';
import { type ChildResult, childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { type FaultProxy, startFaultProxy } from '#test/support/dynamodb-fault-proxy.ts';
import { clearInventory, importedRecord, scanTable } from '#test/support/raw-tables.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { serviceTables, storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let proxy: FaultProxy;
let csv: string;

/** 120 entries: petIds 1..120, so batches of 25 write 25, 50, 75, 100, 120. */
const rows = Array.from({ length: 120 }, (_, i) => ({
  petId: String(i + 1),
  quantity: i,
  status: 'available',
}));

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
  proxy = await startFaultProxy(db.endpoint);
  const dir = await temporaryDir('import-failures-');
  csv = join(dir, 'stock.csv');
  await writeFile(
    csv,
    `petId,quantity,status\n${rows.map((r) => `${r.petId},${r.quantity},${r.status}`).join('\n')}\n`,
  );
});
cleanUpAfterAll(
  () => proxy?.close(),
  () => db?.close(),
);
beforeEach(async () => {
  proxy.fault = () => 'pass';
  proxy.operations.length = 0;
  await clearInventory(db.client, testTableNames.inventory);
});

/** `npm run import -- <csv>` on the DynamoDB behind the proxy, timed. */
async function importThroughProxy(): Promise<ChildResult & { ms: number }> {
  const start = Date.now();
  const result = await runNode(scripts.import, [csv], {
    env: childEnv(storeVariables({ endpoint: proxy.endpoint, credentials: db.credentials })),
    timeoutMs: 60_000,
  });
  return { ...result, ms: Date.now() - start };
}

/** The inventory table exactly as stored. */
function stored() {
  return scanTable(db.client, testTableNames.inventory);
}

const everyRow = () => rows.map((r) => importedRecord(r.petId, r.quantity, r.status));
const resume = 'Importing is idempotent: run the same command again to complete it.';

/**
 * Runs the import through the faulty proxy and asserts that it stopped: exit 1, nothing on stdout, `stderr`
 * exactly (or matching), no stack trace, within a bound, after `batchWrites` BatchWriteItem requests, with the
 * first `written` entries stored. Then, with the proxy passing everything, asserts that a rerun completes it.
 */
async function expectStoppedThenCompleted(expected: {
  stderr: string | RegExp;
  batchWrites: number;
  written: number;
}): Promise<void> {
  const failed = await importThroughProxy();

  expect(failed.code).toBe(1);
  expect(failed.signal).toBeNull();
  expect(failed.stdout).toBe('');
  if (typeof expected.stderr === 'string') expect(failed.stderr).toBe(expected.stderr);
  else expect(failed.stderr).toMatch(expected.stderr);
  expect(failed.stderr).not.toMatch(/^\s+at /m);
  // Bounded: the backoff of one batch (about 5 s) and process start-up, far from the 60 s of the old tool.
  expect(failed.ms).toBeLessThan(20_000);
  expect(proxy.operations.filter((o) => o === 'BatchWriteItem')).toHaveLength(expected.batchWrites);
  expect(await stored()).toStrictEqual(everyRow().slice(0, expected.written));

  proxy.fault = () => 'pass';
  const rerun = await importThroughProxy();

  expect(rerun).toMatchObject({ code: 0, stderr: '\rimported 120/120\n' });
  expect(await stored()).toStrictEqual(everyRow());
}

describe('a store that keeps returning UnprocessedItems', () => {
  test(`exits 1 after ${maxBatchAttempts} attempts of the stuck batch, reports the 50 entries written, and a rerun completes it`, async () => {
    // The first two batches are written; from the third on, DynamoDB leaves every item unprocessed.
    proxy.fault = (operation, batchWrites) =>
      operation === 'BatchWriteItem' && batchWrites > 2 ? 'unprocessed' : 'pass';

    await expectStoppedThenCompleted({
      stderr: `import: stopped after writing 50 of 120 entries: DynamoDB left 25 item(s) unprocessed after ${maxBatchAttempts} attempts (throttled). ${resume}\n`,
      batchWrites: 2 + maxBatchAttempts,
      written: 50,
    });
  }, 60_000);
});

describe('a store that fails mid-way', () => {
  test('exits 1 within a bounded time when DynamoDB stops answering, reports the 75 entries written, and a rerun completes it', async () => {
    // Three batches are written, then every connection is dropped.
    proxy.fault = (operation, batchWrites) =>
      operation === 'BatchWriteItem' && batchWrites > 3 ? 'down' : 'pass';

    await expectStoppedThenCompleted({
      stderr: new RegExp(
        `^import: stopped after writing 75 of 120 entries: DynamoDB failed: [^\\n]+\\. ${resume}\\n$`,
      ),
      // The client's own bounded retries of the failing request, then the tool stops.
      batchWrites: 3 + maxAttempts,
      written: 75,
    });
  }, 60_000);

  test('running the same file twice converges to the same table (idempotent)', async () => {
    expect((await importThroughProxy()).code).toBe(0);
    const once = await stored();
    expect((await importThroughProxy()).code).toBe(0);
    // The same entries; each import records its own time of the change.
    const withoutTime = (items: typeof once) => items.map(({ changedAt, ...item }) => item);
    expect(withoutTime(await stored())).toStrictEqual(withoutTime(once));
    expect(await stored()).toStrictEqual(everyRow());
    expect(once).toStrictEqual(everyRow());
  }, 60_000);
});
