/**
 * lib/admin/tables.ts against real dynalite servers: table creation waits only as long as the table takes to
 * become active, and creates nothing that exists. (A data folder served by a running process is refused by the
 * local AWS: local-aws/test/private-store.test.ts.)
 */
import type { AddressInfo } from 'node:net';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { dynamoDbClient, newStoreCredentials, startTestStore } from '@pet-store/local-aws/testing';
import dynalite from 'dynalite';
import { afterAll, expect, test } from 'vitest';
import { ensureTables } from '#lib/admin/tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('ensureTables returns as soon as tables that take 300 ms to create are active (not after 20 s)', async () => {
  const server = dynalite({ createTableMs: 300 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const client = dynamoDbClient(
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    newStoreCredentials(),
  );
  cleanups.push(async () => client.destroy());

  const start = performance.now();
  const created = await ensureTables(client, testTableNames);
  const seconds = (performance.now() - start) / 1000;

  expect(created).toStrictEqual([
    'inventory',
    'apiKeys',
    'orders',
    'idempotency',
    'inventoryHistory',
    'events',
    'webhookEndpoints',
    'webhookEndpointOwners',
    'webhookFailures',
    'webhookAttempts',
  ]);
  // Eight tables created one after the other at 300 ms each; a waiter's first 20 s delay would exceed this bound.
  expect(seconds).toBeLessThan(10);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: testTableNames.inventory }));
  expect(Table?.TableStatus).toBe('ACTIVE');
});

test('ensureTables creates nothing when the tables exist', async () => {
  const db = await startTestStore({ tables: serviceTables }); // ensureTables created them
  cleanups.push(() => db.close());

  expect(await ensureTables(db.client, testTableNames)).toStrictEqual([]);
});
