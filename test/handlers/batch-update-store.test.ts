/**
 * batchUpdateInventory's write (lib/inventory/batch-update.ts `batchUpdate`) in this process against a real
 * DynamoDB API (in-memory dynalite): docs/contract.md "Inventory semantics" (the batch: all or nothing, the
 * first failing element, adjustments, reorder points) and "Store orders" (`Idempotency-Key`: a keyed batch's
 * claim or token), docs/architecture.md "Writes exactly once". The handler's HTTP answers are proven in
 * test/handlers/batch-update-inventory.test.ts; another writer between the read and the transaction is a real
 * write sent just before each TransactWriteItems.
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient, startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { HttpError } from '#lib/http/errors.ts';
import type { BatchChange } from '#lib/inventory/batch-changes.ts';
import { type BatchOrigin, batchClaim, batchRequestToken, batchUpdate } from '#lib/inventory/batch-update.ts';
import { startFaultProxy } from '#test/support/dynamodb-fault-proxy.ts';
import {
  clearInventory,
  inventoryRecord,
  putItems,
  type RawItem,
  scanTable,
} from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let client: DynamoDBDocumentClient;

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
});
afterAll(() => db?.close());
// The document client shares its middleware stack with the store's client: a test's writer ends with it.
afterEach(() => {
  client.middlewareStack.remove('writerBeforeTransaction');
});
beforeEach(async () => {
  client = toDocumentClient(db.client);
  await clearInventory(db.client, testTableNames.inventory);
  await putItems(db.client, testTableNames.inventory, [
    inventoryRecord('5', 10, 'pending'),
    { ...inventoryRecord('6', 4, 'available'), reorderPoint: { N: '3' } },
  ]);
});

const write = (changes: readonly BatchChange[], origin: BatchOrigin = { keyId: 'key1' }) =>
  batchUpdate(client, testTableNames.inventory, testTableNames.idempotency)(changes, origin);

/** The stored entry of `petId` (raw attributes), without its change time. */
async function stored(petId: string): Promise<RawItem | undefined> {
  const item = (await scanTable(db.client, testTableNames.inventory)).find(
    (entry) => entry.petId?.N === petId,
  );
  if (item) delete item.changedAt;
  return item;
}

/**
 * Runs `before` just before each TransactWriteItems the batch sends: another writer after its read. Returns the
 * transactions sent so far.
 */
function beforeEachTransaction(before: () => Promise<void> = async () => {}): () => number {
  let sent = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') {
        sent++;
        await before();
      }
      return next(args);
    },
    { step: 'initialize', name: 'writerBeforeTransaction' },
  );
  return () => sent;
}

/** Runs `before` just before the batch's first TransactWriteItems only. Returns the transactions sent so far. */
function beforeFirstTransaction(before: () => Promise<void>): () => number {
  let first = true;
  return beforeEachTransaction(async () => {
    if (first) await before();
    first = false;
  });
}

/** An If-Match listing the entity tag of `quantity` and `status`. */
const tag = (quantity: number, status: 'available' | 'pending' | 'sold') => ({
  any: false as const,
  states: [{ quantity, status }],
});

describe('values', () => {
  test('adjustBy adds to the quantity read; a reorder point given is set, null clears it, none keeps it', async () => {
    expect(
      await write([
        { petId: '5', update: { adjustBy: -4, reorderPoint: 7, reason: 'sale' } },
        { petId: '6', update: { adjustBy: 3, reason: 'arrival' } },
      ]),
    ).toStrictEqual({
      items: [
        { petId: '5', quantity: 6, status: 'pending', reorderPoint: 7 },
        { petId: '6', quantity: 7, status: 'available', reorderPoint: 3 },
      ],
    });
    expect(await stored('5')).toStrictEqual({
      ...inventoryRecord('5', 6, 'pending', { reason: 'sale', keyId: 'key1' }),
      reorderPoint: { N: '7' },
    });
    expect(await stored('6')).toStrictEqual({
      ...inventoryRecord('6', 7, 'available', { reason: 'arrival', keyId: 'key1' }),
      reorderPoint: { N: '3' },
    });

    expect(await write([{ petId: '6', update: { reorderPoint: null, reason: 'adjustment' } }])).toStrictEqual(
      {
        items: [{ petId: '6', quantity: 7, status: 'available' }],
      },
    );
    expect(await stored('6')).toStrictEqual(
      inventoryRecord('6', 7, 'available', { reason: 'adjustment', keyId: 'key1' }),
    );
  });

  test('an adjustment leaving 0..2147483647 refuses the batch at its element, nothing changes', async () => {
    expect(
      await write([
        { petId: '6', update: { adjustBy: 1, reason: 'arrival' } },
        { petId: '5', update: { adjustBy: -11, reason: 'sale' } },
      ]),
    ).toStrictEqual({
      index: 1,
      refusal: {
        code: 'insufficient_stock',
        message: 'petId 5 has 10 in stock; adjustBy -11 would leave -1',
      },
    });
    expect(await stored('5')).toStrictEqual(inventoryRecord('5', 10, 'pending'));
    expect(await stored('6')).toStrictEqual({
      ...inventoryRecord('6', 4, 'available'),
      reorderPoint: { N: '3' },
    });
  });

  test('without a key id the entry keeps none', async () => {
    await write([{ petId: '5', update: { quantity: 1, reason: 'sale' } }], {});
    expect(await stored('5')).toStrictEqual(inventoryRecord('5', 1, 'pending', { reason: 'sale' }));
  });
});

describe('another writer between the read and the transaction', () => {
  test('an entry deleted: 404 at its index, from the cancelled transaction', async () => {
    const sent = beforeEachTransaction(async () => {
      await db.client.send(
        new DeleteItemCommand({ TableName: testTableNames.inventory, Key: { petId: { N: '6' } } }),
      );
    });
    expect(
      await write([
        { petId: '5', update: { quantity: 1, reason: 'sale' } },
        { petId: '6', ifMatch: tag(4, 'available'), update: { quantity: 2, reason: 'sale' } },
      ]),
    ).toStrictEqual({ index: 1, refusal: 'not_found' });
    expect(sent()).toBe(1);
    expect(await stored('5')).toStrictEqual(inventoryRecord('5', 10, 'pending'));
  });

  test('a keyed batch whose precondition the changed entry refuses: 412 at its index from the cancelled transaction, the claim not put', async () => {
    const changes: BatchChange[] = [
      { petId: '5', update: { quantity: 1, reason: 'sale' } },
      { petId: '6', ifMatch: tag(4, 'available'), update: { quantity: 2, reason: 'sale' } },
    ];
    const sent = beforeFirstTransaction(() =>
      putItems(db.client, testTableNames.inventory, [inventoryRecord('6', 9, 'available')]),
    );
    const claim = batchClaim('scope race-1', changes);
    expect(await write(changes, { keyId: 'key1', claim })).toStrictEqual({
      index: 1,
      refusal: 'precondition_failed',
    });
    expect(sent()).toBe(1);
    const claims = await scanTable(db.client, testTableNames.idempotency);
    expect(claims.filter((item) => item.id?.S === claim.id)).toStrictEqual([]);
  });

  test('a keyed batch whose entry changed without a precondition: read and decided again, its claim put with the answer', async () => {
    const changes: BatchChange[] = [{ petId: '6', update: { adjustBy: 1, reason: 'arrival' } }];
    const sent = beforeFirstTransaction(() =>
      putItems(db.client, testTableNames.inventory, [inventoryRecord('6', 9, 'available')]),
    );
    const claim = batchClaim('scope race-2', changes);
    const answer = { items: [{ petId: '6', quantity: 10, status: 'available' }] };
    expect(await write(changes, { keyId: 'key1', claim })).toStrictEqual(answer);
    expect(sent()).toBe(2);
    expect(await write(changes, { keyId: 'key1', claim })).toStrictEqual(answer);
    expect(await stored('6')).toMatchObject({ quantity: { N: '10' } });
  });

  test('an entry changed before every transaction: 503 service_unavailable once the attempts are spent', async () => {
    let quantity = 20;
    beforeEachTransaction(() =>
      putItems(db.client, testTableNames.inventory, [inventoryRecord('5', quantity++, 'sold')]),
    );
    const error = await write([{ petId: '5', update: { adjustBy: 1, reason: 'arrival' } }]).catch((e) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error.body).toStrictEqual({
      code: 'service_unavailable',
      message: 'these pets are being changed by others; retry',
      status: 503,
    });
  });
});

describe('a transaction that met another transaction (TransactionConflict)', () => {
  test('is read and decided again; 503 when every attempt meets one', async () => {
    const proxy = await startFaultProxy(db.endpoint);
    const proxied = dynamoDbClient(proxy.endpoint, db.credentials);
    const through = batchUpdate(
      toDocumentClient(proxied),
      testTableNames.inventory,
      testTableNames.idempotency,
    );
    try {
      let conflicts = 1;
      proxy.fault = (operation) =>
        operation === 'TransactWriteItems' && conflicts-- > 0 ? 'conflict' : 'pass';
      const changes: BatchChange[] = [{ petId: '5', update: { adjustBy: 1, reason: 'arrival' } }];
      expect(await through(changes, { keyId: 'key1' })).toStrictEqual({
        items: [{ petId: '5', quantity: 11, status: 'pending' }],
      });
      expect(proxy.operations.filter((operation) => operation === 'TransactWriteItems')).toHaveLength(2);

      proxy.fault = (operation) => (operation === 'TransactWriteItems' ? 'conflict' : 'pass');
      const error = await through(changes, { keyId: 'key1' }).catch((e) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect(error.body.status).toBe(503);
      expect(await stored('5')).toMatchObject({ quantity: { N: '11' } });
    } finally {
      proxied.destroy();
      await proxy.close();
    }
  });
});

describe('a keyed batch', () => {
  const changes: BatchChange[] = [
    {
      petId: '5',
      ifMatch: { any: false, states: [{ quantity: 10, status: 'pending' }] },
      update: { adjustBy: 2, reason: 'arrival' },
    },
    { petId: '6', update: { adjustBy: -1, status: 'sold', reason: 'sale' } },
  ];
  const firstAnswer = {
    items: [
      { petId: '5', quantity: 12, status: 'pending' },
      { petId: '6', quantity: 3, status: 'sold', reorderPoint: 3 },
    ],
  };

  test('with its claim: a repeat answers the first answer, applies once, also after the entries changed; another batch under the key is key_reused', async () => {
    const claim = batchClaim('scope shipment-1', changes);
    expect(await write(changes, { keyId: 'key1', claim })).toStrictEqual(firstAnswer);
    // The repeat finds the entries as the batch left them: the claim in its transaction refuses it.
    expect(await write(changes, { keyId: 'key1', claim })).toStrictEqual({
      items: firstAnswer.items.map(({ petId, quantity, status }) => ({ petId, quantity, status })),
    });
    expect(await stored('5')).toStrictEqual(
      inventoryRecord('5', 12, 'pending', { reason: 'arrival', keyId: 'key1' }),
    );

    // The entries changed since: the read refuses the precondition, and the claim answers.
    await putItems(db.client, testTableNames.inventory, [inventoryRecord('5', 1, 'sold')]);
    expect(await write(changes, { keyId: 'key1', claim })).toStrictEqual({
      items: firstAnswer.items.map(({ petId, quantity, status }) => ({ petId, quantity, status })),
    });
    const other = [{ petId: '6', update: { quantity: 1, reason: 'sale' as const } }];
    expect(await write(other, { keyId: 'key1', claim: batchClaim('scope shipment-1', other) })).toBe(
      'key_reused',
    );
    expect(await stored('5')).toStrictEqual(inventoryRecord('5', 1, 'sold'));
  });

  test('with its token: the entries carry it; a repeat finds its own writes and applies nothing again, its precondition met', async () => {
    const requestToken = batchRequestToken(changes, 'scope shipment-2');
    expect(await write(changes, { keyId: 'key1', requestToken })).toStrictEqual(firstAnswer);
    expect(await stored('5')).toStrictEqual({
      ...inventoryRecord('5', 12, 'pending', { reason: 'arrival', keyId: 'key1' }),
      requestToken: { S: requestToken },
    });
    expect(await write(changes, { keyId: 'key1', requestToken })).toStrictEqual(firstAnswer);
    expect(await stored('5')).toMatchObject({ quantity: { N: '12' }, requestToken: { S: requestToken } });
    expect(await stored('6')).toMatchObject({ quantity: { N: '3' }, requestToken: { S: requestToken } });

    // Another token does not meet the precondition: the entry is not the batch's own write.
    expect(
      await write(changes, { keyId: 'key1', requestToken: batchRequestToken(changes, 'scope other') }),
    ).toStrictEqual({
      index: 0,
      refusal: 'precondition_failed',
    });
  });

  test('with its token: one entry carrying it means the batch committed, even when another writer changed the other since', async () => {
    const requestToken = batchRequestToken(changes, 'scope shipment-3');
    expect(await write(changes, { keyId: 'key1', requestToken })).toStrictEqual(firstAnswer);
    await putItems(db.client, testTableNames.inventory, [inventoryRecord('6', 8, 'available')]);
    expect(await write(changes, { keyId: 'key1', requestToken })).toStrictEqual({
      items: [firstAnswer.items[0], { petId: '6', quantity: 8, status: 'sold' }],
    });
    expect(await stored('5')).toMatchObject({ quantity: { N: '12' } });
  });

  test('an expired claim of another batch under the key no longer refuses: the refusal stands', async () => {
    const claim = batchClaim('scope shipment-4', changes);
    await putItems(db.client, testTableNames.idempotency, [
      {
        id: { S: claim.id },
        batchDigest: { S: 'another batch' },
        expiration: { N: String(Math.floor(Date.now() / 1000) - 60) },
      },
    ]);
    await putItems(db.client, testTableNames.inventory, [inventoryRecord('5', 1, 'sold')]);
    expect(await write(changes, { keyId: 'key1', claim })).toStrictEqual({
      index: 0,
      refusal: 'precondition_failed',
    });
  });

  test('the token is a version 8 UUID of the scoped key and the changes', () => {
    const token = batchRequestToken(changes, 'scope shipment-2');
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(batchRequestToken(changes, 'scope shipment-2')).toBe(token);
    expect(batchRequestToken(changes, 'scope shipment-3')).not.toBe(token);
    expect(batchRequestToken(changes.slice(1), 'scope shipment-2')).not.toBe(token);
  });
});
