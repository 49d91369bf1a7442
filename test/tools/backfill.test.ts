/**
 * The backfill tool (`npm run backfill`, ops/backfill.ts) run as a real child process on a local store
 * written by the code before the list index: a data folder whose inventory table has no index and whose entries
 * have no list shard (docs/contract.md "Inventory semantics"; docs/operating.md "Upgrading a store to the list index").
 * Afterwards the table has the index, every entry its shard, and the sorted list holds every entry; a second
 * run has nothing left to do; a rebuild stopped after its copy resumes from the copy.
 */

import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  createActiveTable,
  dynamoDbClient,
  startTestStore,
  type TestStore,
  temporaryDir,
} from 'local-aws/testing';
import { expect, onTestFinished, test } from 'vitest';
import { createTable } from '#lib/admin/tables.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { listIndex, lowStockIndex } from '#lib/tables.ts';
import { backfillListIndex } from '#ops/list-index-backfill.ts';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import {
  inventoryRecord,
  legacyInventoryRecord,
  putItems,
  type RawItem,
  scanTable,
} from '#test/support/raw-tables.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

cleanUpAfterAll();

const ids = ['-9223372036854775808', '-7', '0', '5', '42', '9007199254740993', '9223372036854775807'];
const statuses = ['available', 'pending', 'sold'];
const legacyItems = ids.map((id, i) => legacyInventoryRecord(id, i, statuses[i % 3] as string));

/** Creates the inventory table as the code before the list index did (partition key only) and fills it. */
async function writeLegacyStore(db: TestStore, items: readonly RawItem[]): Promise<void> {
  await createActiveTable(db.client, {
    TableName: testTableNames.inventory,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'petId', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'petId', KeyType: 'HASH' }],
  });
  await putItems(db.client, testTableNames.inventory, items);
}

/** The inventory as the service lists it, from the store of `db`. */
async function sortedList(db: TestStore): Promise<string[]> {
  const client = toDocumentClient(dynamoDbClient(db.endpoint, db.credentials));
  const petIds: string[] = [];
  for await (const batch of inventoryStore(client, testTableNames.inventory).listSorted()) {
    petIds.push(...batch.map((item) => `${item.petId}:${item.quantity}:${item.status}`));
  }
  client.destroy();
  return petIds;
}

const expectedList = ids.map((id, i) => `${id}:${i}:${statuses[i % 3]}`);
const expectedItems = ids.map((id, i) => inventoryRecord(id, i, statuses[i % 3] as string));

/** Asserts the layout of the list index: every entry stored with its shard, and the sorted list whole. */
async function expectListIndexLayout(db: TestStore): Promise<void> {
  expect(await scanTable(db.client, testTableNames.inventory)).toStrictEqual(expectedItems);
  expect(await sortedList(db)).toStrictEqual(expectedList);
}

test('brings a data folder written before the list index into the layout, and a second run does nothing', async () => {
  const dataDir = await temporaryDir('backfill-');
  const db = await startTestStore({ dataDir });
  await writeLegacyStore(db, legacyItems);
  await db.close();

  const env = childEnv({ DATA_DIR: dataDir });
  const first = await runNode(scripts.backfill, [], { env, timeoutMs: 60_000 });
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toBe(
    `Backfilled local store ${dataDir}: index rebuilt, list shard set on 0 entries.\n`,
  );
  expect(first.stderr).toContain(`rebuilding it through ${testTableNames.inventory}-backfill`);

  const again = await runNode(scripts.backfill, [], { env, timeoutMs: 60_000 });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toBe(
    `Backfilled local store ${dataDir}: index present, list shard set on 0 entries.\n`,
  );

  const reopened = await startTestStore({ dataDir });
  onTestFinished(() => reopened.close());
  const { Table } = await reopened.client.send(
    new DescribeTableCommand({ TableName: testTableNames.inventory }),
  );
  // Rebuilt as the service defines the table today: the list index and the low-stock index.
  expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toStrictEqual([
    listIndex.name,
    lowStockIndex.name,
  ]);
  await expectListIndexLayout(reopened);
});

test('sets the shard of entries written without one into a table that has the index', async () => {
  const db = await startTestStore();
  onTestFinished(() => db.close());
  await createTable(db.client, 'inventory', testTableNames.inventory);
  await putItems(db.client, testTableNames.inventory, [
    ...legacyItems.slice(0, 4),
    ...expectedItems.slice(4),
  ]);
  expect(await sortedList(db)).toStrictEqual(expectedList.slice(4));

  expect(await backfillListIndex(db.client, testTableNames.inventory, { local: true })).toStrictEqual({
    index: 'present',
    updated: 4,
  });
  await expectListIndexLayout(db);
});

test('a rebuild stopped after the table was dropped resumes from its copy, losing nothing', async () => {
  const db = await startTestStore();
  onTestFinished(() => db.close());
  // The state a run leaves when it stops between dropping the table and copying the entries back.
  await createTable(db.client, 'inventory', `${testTableNames.inventory}-backfill`);
  await putItems(db.client, `${testTableNames.inventory}-backfill`, expectedItems);

  expect(await backfillListIndex(db.client, testTableNames.inventory, { local: true })).toStrictEqual({
    index: 'rebuilt',
    updated: 0,
  });
  await expectListIndexLayout(db);
});
