/**
 * functions/list-inventory invoked directly with REST proxy events (payload 1.0) in Lambda's response
 * streaming mode, against a real DynamoDB API (in-memory dynalite): docs/service-spec.md §4.1,
 * docs/contract.md "Inventory semantics" and "Identifiers". What a client receives is read from the response stream
 * as API Gateway reads it (prelude, delimiter, body).
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { lambdaContext } from 'local-aws';
import type { TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { listIndex } from '#lib/tables.ts';
import { type FaultProxy, proxiedTestDynamoDb } from '#test/support/dynamodb-fault-proxy.ts';
import { importInventoryHandlers, listInventoryEvent } from '#test/support/handler-suite.ts';
import { invokeStreaming, type StreamedResult, type StreamingHandler } from '#test/support/lambda-events.ts';
import {
  clearInventory,
  inventoryRecord,
  petIdsInShard,
  putItems,
  type RawItem,
  scanTable,
} from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let proxy: FaultProxy;
let handler: StreamingHandler;

beforeAll(async () => {
  // The function reaches DynamoDB through a proxy that a test can make fail in the middle of a list.
  ({ db, proxy } = await proxiedTestDynamoDb());
  handler = (await importInventoryHandlers()).listInventory;
});
afterAll(async () => {
  await proxy?.close();
  await db?.close();
});

beforeEach(async () => {
  await clearInventory(db.client, testTableNames.inventory);
});

function listInventory(query?: Record<string, string[]>): Promise<StreamedResult> {
  const event = listInventoryEvent(
    { Accept: 'application/json', Authorization: 'Bearer psk_not-read-by-the-function' },
    query === undefined ? {} : { query },
  );
  return invokeStreaming(handler, event, lambdaContext('listInventory'));
}

describe('listInventory', () => {
  test('an empty table is 200 with the empty JSON array', async () => {
    expect(await listInventory()).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '[]',
      complete: true,
    });
  });

  test('returns every entry sorted by petId in numeric order, negative and beyond 2^53 exact', async () => {
    const stored: RawItem[] = [
      inventoryRecord('10', 1, 'available'),
      inventoryRecord('9223372036854775807', 2, 'pending'),
      inventoryRecord('-2', 3, 'sold'),
      inventoryRecord('2', 4, 'available'),
      inventoryRecord('-9223372036854775808', 5, 'pending'),
      inventoryRecord('9007199254740993', 6, 'sold'),
      inventoryRecord('0', 7, 'available'),
      inventoryRecord('-10', 8, 'pending'),
      inventoryRecord('9007199254740992', 2147483647, 'sold'),
    ];
    await putItems(db.client, testTableNames.inventory, stored);

    const result = await listInventory();

    expect(result).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body:
        '[' +
        [
          '{"petId":-9223372036854775808,"quantity":5,"status":"pending"}',
          '{"petId":-10,"quantity":8,"status":"pending"}',
          '{"petId":-2,"quantity":3,"status":"sold"}',
          '{"petId":0,"quantity":7,"status":"available"}',
          '{"petId":2,"quantity":4,"status":"available"}',
          '{"petId":10,"quantity":1,"status":"available"}',
          '{"petId":9007199254740992,"quantity":2147483647,"status":"sold"}',
          '{"petId":9007199254740993,"quantity":6,"status":"sold"}',
          '{"petId":9223372036854775807,"quantity":2,"status":"pending"}',
        ].join(',') +
        ']',
      complete: true,
    });
  });

  test('DynamoDB itself orders one shard by petId, negative int64 extremes included', async () => {
    const ids = ['-9223372036854775808', '-9223372036854775807', '-1000', '-999', '-1', '0', '1', '999'];
    const all = [...ids, '1000', '9223372036854775806', '9223372036854775807'];
    await putItems(
      db.client,
      testTableNames.inventory,
      all.map((id) => ({ ...inventoryRecord(id, 1, 'sold'), listShard: { N: '0' } })),
    );
    const { Items } = await db.client.send(
      new QueryCommand({
        TableName: testTableNames.inventory,
        IndexName: listIndex.name,
        KeyConditionExpression: 'listShard = :zero',
        ExpressionAttributeValues: { ':zero': { N: '0' } },
      }),
    );
    expect(Items?.map((item) => item.petId?.N)).toStrictEqual(all);
  });

  test('each element has exactly petId, quantity and status, whatever else the item stores', async () => {
    await putItems(db.client, testTableNames.inventory, [
      { ...inventoryRecord('7', 3, 'sold'), note: { S: 'internal' }, updatedAt: { N: '1700000000' } },
    ]);

    const result = await listInventory();

    expect(result.body).toBe('[{"petId":7,"quantity":3,"status":"sold"}]');
  });

  test('merges every entry across several Query pages of one shard and single pages of the others', async () => {
    // 2,100 entries in shard 3 (several Query pages) and one in each other shard.
    const crowded = petIdsInShard(3, 2100);
    const others = Array.from(
      { length: listIndex.shards },
      (_, shard) => petIdsInShard(shard, 1, 5000)[0] as string,
    );
    const ids = [...new Set([...crowded, ...others])].sort((a, b) => Number(a) - Number(b));
    await putItems(
      db.client,
      testTableNames.inventory,
      ids.map((id) => inventoryRecord(id, Number(id) % 7, 'available')),
    );

    const result = await listInventory();

    expect(result.complete).toBe(true);
    expect(JSON.parse(result.body)).toStrictEqual(
      ids.map((id) => ({ petId: Number(id), quantity: Number(id) % 7, status: 'available' })),
    );
  });

  test('a database lost after the first pages cuts the stream: no closing bracket, never valid JSON', async () => {
    await putItems(
      db.client,
      testTableNames.inventory,
      petIdsInShard(5, 3000).map((id) => inventoryRecord(id, 1, 'pending')),
    );
    const event = listInventoryEvent();
    const stream = invokeStreaming(handler, event, lambdaContext('listInventory'), () => proxy.fail());
    const result = await stream.finally(() => proxy.restore());

    expect(result.statusCode).toBe(200);
    expect(result.complete).toBe(false);
    expect(result.body.startsWith('[{"petId":')).toBe(true);
    expect(result.body.endsWith(']')).toBe(false);
    expect(() => JSON.parse(result.body)).toThrow(SyntaxError);
  });

  test('does not change the table', async () => {
    const stored = [inventoryRecord('1', 1, 'available'), inventoryRecord('-1', 0, 'sold')];
    await putItems(db.client, testTableNames.inventory, stored);

    await listInventory();

    expect(await scanTable(db.client, testTableNames.inventory)).toStrictEqual([stored[1], stored[0]]);
  });
});

describe('listInventory query parameters (docs/contract.md "Requests as API Gateway delivers them")', () => {
  test('a query parameter the operation does not declare is 400 invalid_request naming it', async () => {
    await putItems(db.client, testTableNames.inventory, [inventoryRecord('1', 1, 'available')]);

    expect(await listInventory({ status: ['sold'], sort: ['petId'], page: ['1', '2'] })).toStrictEqual({
      statusCode: 400,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        code: 'invalid_request',
        message:
          'query parameters not allowed: "sort", "page" (this operation takes limit, cursor, status, lowStock, petIds)',
        status: 400,
      }),
      complete: true,
    });
  });

  test('an empty query parameter (?x) is named too', async () => {
    const result = await listInventory({ x: [''] });

    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).message).toBe(
      'query parameters not allowed: "x" (this operation takes limit, cursor, status, lowStock, petIds)',
    );
  });
});

/** The target of a `Link: <...>; rel="next"` header (RFC 8288), or undefined when there is none. */
function nextLink(result: StreamedResult): string | undefined {
  const link = result.headers.Link;
  if (link === undefined) return undefined;
  const match = /^<([^>]*)>; rel="next"$/.exec(String(link));
  if (!match) throw new Error(`malformed Link header: ${link}`);
  return match[1];
}

/** The query of a Link target, as API Gateway would decode it for the next request. */
function queryOf(target: string): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [name, value] of new URL(target, 'https://example.com').searchParams) {
    query[name] = [...(query[name] ?? []), value];
  }
  return query;
}

/** Every page from `query` on, following the Link headers. */
async function allPages(query: Record<string, string[]>): Promise<StreamedResult[]> {
  const pages = [await listInventory(query)];
  for (let target = nextLink(pages[0] as StreamedResult); target; ) {
    expect(target.startsWith('/v1/inventory?')).toBe(true);
    const page = await listInventory(queryOf(target));
    pages.push(page);
    target = nextLink(page);
  }
  return pages;
}

function invalid(message: string) {
  return {
    statusCode: 400,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code: 'invalid_request', message, status: 400 }),
    complete: true,
  };
}

describe('listInventory pages and status filter', () => {
  const statuses = ['available', 'pending', 'sold'] as const;
  const ids = ['-9223372036854775808', '-5', '0', '3', '9007199254740993', '9223372036854775807', '12', '7'];
  const entries = ids.map((id, i) => ({ petId: id, quantity: i, status: statuses[i % 3] as string }));
  const sorted = [...entries].sort((a, b) => (BigInt(a.petId) < BigInt(b.petId) ? -1 : 1));
  const json = (list: typeof entries) =>
    `[${list.map((e) => `{"petId":${e.petId},"quantity":${e.quantity},"status":"${e.status}"}`).join(',')}]`;

  beforeEach(async () => {
    await putItems(
      db.client,
      testTableNames.inventory,
      entries.map((e) => inventoryRecord(e.petId, e.quantity, e.status)),
    );
  });

  test('pages of limit entries followed by their Link headers give exactly the full list', async () => {
    for (const limit of [1, 3, 7, 8, 1000]) {
      const pages = await allPages({ limit: [String(limit)] });
      expect(pages.length).toBe(Math.ceil(sorted.length / limit));
      for (const page of pages) {
        expect(page.statusCode).toBe(200);
        expect(page.headers['Content-Type']).toBe('application/json');
        expect(JSON.parse(page.body).length).toBeLessThanOrEqual(limit);
      }
      const items = pages.flatMap((page) => page.body.slice(1, -1)).filter((body) => body !== '');
      expect(`[${items.join(',')}]`).toBe(json(sorted));
    }
  });

  test('a page that holds the last entry has no Link', async () => {
    const [only] = await allPages({ limit: [String(sorted.length)] });
    expect(only?.headers.Link).toBeUndefined();
    expect(only?.body).toBe(json(sorted));
  });

  test('status keeps only entries of that status, sorted, with or without pages', async () => {
    for (const status of statuses) {
      const expected = json(sorted.filter((e) => e.status === status));
      expect((await listInventory({ status: [status] })).body).toBe(expected);
      const pages = await allPages({ status: [status], limit: ['1'] });
      const items = pages.map((page) => page.body.slice(1, -1)).filter((body) => body !== '');
      expect(`[${items.join(',')}]`).toBe(expected);
      for (const page of pages.slice(0, -1))
        expect(queryOf(nextLink(page) ?? '').status).toStrictEqual([status]);
    }
  });

  test.each([['0'], ['1001'], ['01'], ['-1'], ['1.0'], ['1e3'], [''], ['ten']])(
    'limit=%j is 400',
    async (limit) => {
      expect(await listInventory({ limit: [limit] })).toStrictEqual(
        invalid('limit must be an integer from 1 to 1000'),
      );
    },
  );

  test('an unknown status is 400', async () => {
    expect(await listInventory({ status: ['lost'] })).toStrictEqual(
      invalid('status must be one of available, pending, sold'),
    );
  });

  test('a parameter given twice is 400', async () => {
    expect(await listInventory({ limit: ['1', '2'] })).toStrictEqual(
      invalid('query parameter limit must be given at most once'),
    );
  });

  test('a tampered, cut, padded or made-up cursor is 400 and changes nothing', async () => {
    const first = await listInventory({ limit: ['2'] });
    const cursor = queryOf(nextLink(first) ?? '').cursor?.[0] as string;
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ after: '7', status: null })).toString('base64url');
    const flip = (text: string) => `${text.slice(0, -1)}${text.endsWith('A') ? 'B' : 'A'}`;
    const before = await scanTable(db.client, testTableNames.inventory);
    for (const bad of [
      flip(cursor),
      `${flip(payload)}.${mac}`,
      cursor.slice(0, -2),
      `${cursor}.x`,
      `${forged}.${mac}`,
      payload,
      '',
      'not a cursor',
    ]) {
      expect(await listInventory({ limit: ['2'], cursor: [bad] })).toStrictEqual(
        invalid("cursor is not valid: pass the cursor of the previous page's Link header unchanged"),
      );
    }
    expect(await scanTable(db.client, testTableNames.inventory)).toStrictEqual(before);
  });

  test('a cursor used with another status filter is 400', async () => {
    const first = await listInventory({ limit: ['1'], status: ['sold'] });
    const cursor = queryOf(nextLink(first) ?? '').cursor?.[0] as string;
    expect(await listInventory({ limit: ['1'], status: ['available'], cursor: [cursor] })).toStrictEqual(
      invalid('cursor was issued for another status filter: keep the status of the first page'),
    );
    expect(await listInventory({ limit: ['1'], cursor: [cursor] })).toStrictEqual(
      invalid('cursor was issued for another status filter: keep the status of the first page'),
    );
  });
});
