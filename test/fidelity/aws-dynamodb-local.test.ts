/**
 * The HTTP behaviours again, against AWS's own DynamoDB Local instead of dynalite (docs/architecture.md: the
 * integration suites use a real DynamoDB API). A difference between the two that this suite finds is a bug
 * to fix in the code, not in the test.
 *
 * DynamoDB Local needs Java. When `java` is not on PATH the whole file is skipped, with the reason printed:
 * the one skip the suite allows.
 */
import { randomUUID } from 'node:crypto';
import { ListTablesCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import { indexLowStock } from '#lib/inventory/low-stock.ts';
import { expectContractError, observe } from '#test/support/contract-oracle.ts';
import { type DynamoDbLocal, hasJava, startDynamoDbLocal } from '#test/support/dynamodb-local.ts';
import { crowdedShard, int64Inventory, listBody, sortedByPetId } from '#test/support/inventory-fixtures.ts';
import { orderRecord } from '#test/support/raw-tables.ts';
import { storedEntry, type TestApi } from '#test/support/test-api.ts';

const javaPresent = hasJava();
if (!javaPresent) {
  console.warn(
    'test/fidelity/aws-dynamodb-local.test.ts skipped: `java` is not on PATH, and DynamoDB Local is a Java program.',
  );
}

const items = int64Inventory;
const unauthorizedMessage = 'a valid API key is required: send Authorization: Bearer <API_KEY>';

let dynamoDb: DynamoDbLocal;
let api: TestApi;

/** The stored entries: those of `patched` (petIds) record the suite key's last PATCH, the others their import. */
function tableOf(entries: readonly InventoryItem[], patched: readonly string[] = []) {
  return sortedByPetId(entries).map(({ petId, quantity, status }) =>
    storedEntry(
      petId,
      quantity,
      status,
      patched.includes(petId) ? { reason: 'adjustment', keyId: api.keyId } : { reason: 'import' },
    ),
  );
}

/** The pet the first update test changes and then restores: from then on it records that PATCH. */
const updatedPet = '9223372036854775807';

describe.skipIf(!javaPresent)('the HTTP API on DynamoDB Local', () => {
  beforeAll(async () => {
    dynamoDb = await startDynamoDbLocal();
    process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamoDb.endpoint;
    const { startTestApi } = await import('#test/support/test-api.ts');
    api = await startTestApi();
    await api.inventory.putMany(items);
  });
  afterAll(async () => {
    await api?.close();
    await dynamoDb?.close();
  });

  test('lists every entry sorted by petId in numeric order, each petId exact over the whole int64 range', async () => {
    const response = await api.list();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe(listBody(items));
  });

  test('updates the quantity of an existing pet with 200, leaving its status and every other entry unchanged', async () => {
    const response = await api.patch('9223372036854775807', '{"quantity":17}');
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe('{"petId":9223372036854775807,"quantity":17,"status":"sold"}');
    const updated = items.map((item) =>
      item.petId === '9223372036854775807' ? { ...item, quantity: 17 } : item,
    );
    expect(await api.tableItems()).toEqual(tableOf(updated, [updatedPet]));
    await api.patch('9223372036854775807', '{"quantity":2147483647}');
  });

  test('rejects a PATCH of a pet with no entry with 404 not_found and creates no entry', async () => {
    const response = await api.patch('9223372036854775806', '{"quantity":1}');
    expectContractError(observe(response), 404);
    expect(await api.tableItems()).toEqual(tableOf(items, [updatedPet]));
  });

  // Every refused petId and body is proven in test/contract/responses.test.ts; they are refused before any
  // DynamoDB request, so one of them here shows the wiring on this database.
  test('rejects a quantity above 2147483647 with 400 invalid_request and leaves the table unchanged', async () => {
    const response = await api.patch('9', '{"quantity":2147483648}');
    expectContractError(observe(response), 400, 'quantity must be an integer from 0 to 2147483647');
    expect(await api.tableItems()).toEqual(tableOf(items, [updatedPet]));
  });

  test('answers an unknown route with 404 not_found', async () => {
    const response = await api.request('GET', '/pets', { headers: { Authorization: api.authorization } });
    expectContractError(
      observe(response),
      404,
      'no such route or method: the operations are listed in the API description (openapi.yaml)',
    );
  });

  test('answers a request with an unknown key with 401 unauthorized and leaves the table unchanged', async () => {
    const response = await api.patch('9', '{"quantity":1}', { Authorization: 'Bearer psk_unknown' });
    expectContractError(observe(response), 401, unauthorizedMessage);
    expect(await api.tableItems()).toEqual(tableOf(items, [updatedPet]));
  });

  test('answers getInventoryItem with the entry and its ETag, and honours If-Match on PATCH (412 changes nothing, 404 first)', async () => {
    const read = await api.request('GET', '/inventory/-10', {
      headers: { Authorization: api.authorization },
    });
    expect(read.status).toBe(200);
    expect(read.text).toBe('{"petId":-10,"quantity":4,"status":"sold"}');
    expect(read.headers.get('etag')).toBe('"4-sold"');
    const before = await api.tableItems();
    const stale = await api.patch('-10', '{"quantity":7}', { 'If-Match': '"5-sold"' });
    expectContractError(observe(stale), 412, 'If-Match does not match the current entry of petId -10');
    expect(await api.tableItems()).toEqual(before);
    const missing = await api.patch('11', '{"quantity":7}', { 'If-Match': '"4-sold"' });
    expectContractError(observe(missing), 404, 'no inventory entry for petId 11');
    const current = await api.patch('-10', '{"quantity":7}', { 'If-Match': '"1-sold", "4-sold"' });
    expect(current.status).toBe(200);
    expect(current.headers.get('etag')).toBe('"7-sold"');
    const again = await api.patch('-10', '{"quantity":4}', { 'If-Match': '"7-sold"' });
    expect(again.headers.get('etag')).toBe('"4-sold"');
    expect(await api.tableItems()).toEqual(tableOf(items, [updatedPet, '-10']));
  });

  test('lists every entry across several Query pages of one index shard, merged with the other shards', async () => {
    // 2,100 more entries in shard 2: several Query pages.
    const crowded = crowdedShard(2, 2100, 1000, 1, 'sold');
    await api.inventory.putMany(crowded);
    const response = await api.list();
    expect(response.status).toBe(200);
    expect(response.text).toBe(listBody([...items, ...crowded]));
  });

  test('adds a pet (one item with its entry, quantity 0) and answers getPetById with both deprecation headers', async () => {
    const added = await api.request('POST', '/pets', {
      headers: { Authorization: api.authorization, 'Content-Type': 'application/json' },
      body: '{"id": 9223372036854775806, "name": "Rex", "status": "pending"}',
    });
    expect(added.status, added.text).toBe(201);
    expect(added.text).toBe(
      '{"id":9223372036854775806,"name":"Rex","photoUrls":[],"tags":[],"status":"pending"}',
    );
    const pet = await api.request('GET', '/pets/9223372036854775806', {
      headers: { Authorization: api.authorization },
    });
    expect(pet.text).toBe(added.text);
    expect([pet.headers.get('deprecation'), pet.headers.get('sunset')]).toEqual([
      '@1795392000',
      'Wed, 30 Jun 2027 23:59:59 GMT',
    ]);
    const entry = await api.request('GET', '/inventory/9223372036854775806', {
      headers: { Authorization: api.authorization },
    });
    expect(entry.text).toBe('{"petId":9223372036854775806,"quantity":0,"status":"pending"}');
    const again = await api.request('POST', '/pets', {
      headers: { Authorization: api.authorization, 'Content-Type': 'application/json' },
      body: '{"id": 9223372036854775806, "name": "Rex"}',
    });
    expect([again.status, JSON.parse(again.text)]).toEqual([
      409,
      { code: 'conflict', message: 'a pet with id 9223372036854775806 exists', status: 409 },
    ]);
  });

  test('places orders in one transaction (201, 409 insufficient_stock, 409 pet_unavailable, 404), replays an Idempotency-Key, lists newest first (ids from before 2^53 - 1 last)', async () => {
    const order = (body: string, headers: Record<string, string> = {}) =>
      api.request('POST', '/store/orders', {
        headers: { Authorization: api.authorization, 'Content-Type': 'application/json', ...headers },
        body,
      });
    const first = await order('{"petId": 10, "quantity": 4}', { 'Idempotency-Key': 'local-1' });
    expect(first.status, first.text).toBe(201);
    const replay = await order('{"petId": 10, "quantity": 4}', { 'Idempotency-Key': 'local-1' });
    expect(replay.text).toBe(first.text);
    const reused = await order('{"petId": 10, "quantity": 5}', { 'Idempotency-Key': 'local-1' });
    expectContractError(observe(reused), 422);
    const second = await order('{"petId": 10, "quantity": 6}');
    expect(second.status, second.text).toBe(201);
    const short = await order('{"petId": 10, "quantity": 1}');
    expect([short.status, JSON.parse(short.text)]).toEqual([
      409,
      { code: 'insufficient_stock', message: 'fewer than 1 of petId 10 in stock', status: 409 },
    ]);
    expectContractError(observe(await order('{"petId": 11, "quantity": 1}')), 404);
    for (const [petId, quantity, status] of [
      ['-1', 1, 'pending'],
      ['0', 5, 'sold'],
    ] as const) {
      const unavailable = await order(`{"petId": ${petId}, "quantity": ${quantity}}`);
      expect([unavailable.status, JSON.parse(unavailable.text)]).toEqual([
        409,
        {
          code: 'pet_unavailable',
          message: `petId ${petId} is not available: its status is ${status}`,
          status: 409,
        },
      ]);
    }
    // An order placed before assigned ids fit in 2^53 - 1 (milliseconds << 22 | 22 random bits).
    const early = String((BigInt(Date.UTC(2026, 10, 20)) << 22n) | 7n);
    await api.putRawItems([orderRecord(early, '10', 1, 'delivered')], 'orders');
    const entry = await api.request('GET', '/inventory/10', {
      headers: { Authorization: api.authorization },
    });
    expect(entry.text).toBe('{"petId":10,"quantity":0,"status":"available"}');
    const ids = [first, second].map((response) => /^\{"id":(\d+)/.exec(response.text)?.[1]);
    const page = await api.request('GET', '/store/orders?limit=1', {
      headers: { Authorization: api.authorization },
    });
    expect(page.text).toContain(`"id":${ids[1]}`);
    const next = /^<\/v1([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1] as string;
    const rest = await api.request('GET', next, { headers: { Authorization: api.authorization } });
    expect(rest.text).toContain(`"id":${ids[0]}`);
    const last = /^<\/v1([^>]+)>; rel="next"$/.exec(rest.headers.get('link') ?? '')?.[1] as string;
    const oldest = await api.request('GET', last, { headers: { Authorization: api.authorization } });
    expect(oldest.text).toBe(
      `[{"id":${early},"petId":10,"quantity":1,"status":"delivered","complete":true}]`,
    );
    expect(oldest.headers.get('link')).toBeNull();
    await api.patch('10', '{"quantity":10}');
  });

  test('a transaction sent again with its ClientRequestToken after another write answers success and writes nothing again (local-aws/behaviour.md X1)', async () => {
    const { TableNames = [] } = await api.dynamoDb.send(new ListTablesCommand({}));
    const table = TableNames.find((name) => name.endsWith('inventory')) as string;
    const before = await api.tableItems();
    const setQuantity = (quantity: number, token?: string) =>
      api.dynamoDb.send(
        new TransactWriteItemsCommand({
          ...(token === undefined ? {} : { ClientRequestToken: token }),
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: { petId: { N: '-10' } },
                UpdateExpression: 'SET quantity = :quantity',
                ExpressionAttributeValues: { ':quantity': { N: String(quantity) } },
              },
            },
          ],
        }),
      );
    const token = randomUUID();
    await setQuantity(21, token);
    await setQuantity(22);
    await setQuantity(21, token);
    expect((await api.tableItems()).find((item) => item.petId === '-10')?.quantity).toBe('22');
    await setQuantity(4);
    expect(await api.tableItems()).toEqual(before);
  });

  test('adjusts by a delta in one conditional write (409 below 0 and past 2147483647, nothing changed), sets and clears a reorder point, lists the low entries from the sparse index, and reads entries by id with BatchGetItem', async () => {
    const before = await api.tableItems();
    const sale = await api.patch('9', '{"adjustBy":-2,"reason":"sale"}');
    expect([sale.status, sale.text, sale.headers.get('etag')]).toEqual([
      200,
      '{"petId":9,"quantity":7,"status":"available"}',
      '"7-available"',
    ]);
    const short = await api.patch('9', '{"adjustBy":-8,"reason":"sale"}');
    expect([short.status, JSON.parse(short.text)]).toEqual([
      409,
      {
        code: 'insufficient_stock',
        message: 'petId 9 has 7 in stock; adjustBy -8 would leave -1',
        status: 409,
      },
    ]);
    const over = await api.patch('9223372036854775807', '{"adjustBy":1,"reason":"arrival"}');
    expect([over.status, JSON.parse(over.text)]).toEqual([
      409,
      {
        code: 'quantity_out_of_range',
        message:
          'petId 9223372036854775807 has 2147483647 in stock; adjustBy 1 would make 2147483648, more than 2147483647',
        status: 409,
      },
    ]);
    const point = await api.patch('7', '{"reorderPoint":7}');
    expect([point.status, point.text]).toEqual([
      200,
      '{"petId":7,"quantity":7,"status":"available","reorderPoint":7}',
    ]);
    // The sparse low-stock index, kept as the change records' consumer keeps it (lib/inventory/low-stock.ts).
    const { TableNames = [] } = await api.dynamoDb.send(new ListTablesCommand({}));
    const table = TableNames.find((name) => name.endsWith('inventory')) as string;
    const documents = toDocumentClient(api.dynamoDb);
    await indexLowStock(documents, table, [{ petId: '7', low: true, indexed: false }]);
    const low = await api.request('GET', '/inventory?lowStock=true', {
      headers: { Authorization: api.authorization },
    });
    expect([low.status, low.text]).toEqual([
      200,
      '[{"petId":7,"quantity":7,"status":"available","reorderPoint":7}]',
    ]);
    const byId = await api.request('GET', '/inventory?petIds=9,7,-9223372036854775808,12', {
      headers: { Authorization: api.authorization },
    });
    expect([byId.status, byId.text]).toEqual([
      200,
      '[{"petId":-9223372036854775808,"quantity":0,"status":"available"},{"petId":7,"quantity":7,"status":"available","reorderPoint":7},{"petId":9,"quantity":7,"status":"available"}]',
    ]);
    const cleared = await api.patch('7', '{"reorderPoint":null}');
    expect([cleared.status, cleared.text]).toEqual([200, '{"petId":7,"quantity":7,"status":"available"}']);
    // Not low any more: the query's filter drops it before the consumer unmarks it.
    const stale = await api.request('GET', '/inventory?lowStock=true', {
      headers: { Authorization: api.authorization },
    });
    expect([stale.status, stale.text]).toEqual([200, '[]']);
    await indexLowStock(documents, table, [{ petId: '7', low: false, indexed: true }]);
    await api.patch('9', '{"adjustBy":2}');
    await api.patch('7', '{"quantity":7}');
    const after = await api.tableItems();
    expect(after.map(({ petId, quantity, status }) => [petId, quantity, status])).toEqual(
      before.map(({ petId, quantity, status }) => [petId, quantity, status]),
    );
    expect(after.find((item) => item.petId === '7')).not.toHaveProperty('reorderPoint');
  });
});
