/**
 * listInventory over HTTP (docs/service-spec.md §4.1; docs/contract.md "Inventory semantics"): the whole list
 * streamed in chunks, sorted by petId in numeric order, each element with exactly petId, quantity and status;
 * pages followed by their `Link` headers; the status filter.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestApi, type TestApi } from '#test/support/local-api.ts';
import { petIdsInShard } from '#test/support/test-dynamodb.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** `GET <url>` with the test key: status, headers as the HTTP client received them, body. */
function get(url: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { Authorization: api.authorization } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** The JSON array of every page from `url` on, following each page's `Link: <...>; rel="next"`. */
async function followPages(url: string): Promise<string> {
  const limit = Number(new URL(url).searchParams.get('limit'));
  const pages: string[] = [];
  for (let next: string | undefined = url; next; ) {
    const page = await get(next);
    expect(page.status, page.text).toBe(200);
    expect(JSON.parse(page.text).length).toBeLessThanOrEqual(limit);
    if (page.text !== '[]') pages.push(page.text.slice(1, -1));
    const link = page.headers.link as string | undefined;
    const target = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    if (link !== undefined) expect(target, link).toBeDefined();
    next = target === undefined ? undefined : new URL(target, next).href;
  }
  return `[${pages.join(',')}]`;
}

test('answers an empty table with 200 and []', async () => {
  const response = await api.list();
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.text).toBe('[]');
});

test('sorts by petId in numeric order, negative and beyond 2^53 included, with exact digits', async () => {
  await api.inventory.putMany([
    { petId: '10', quantity: 1, status: 'available' },
    { petId: '9223372036854775807', quantity: 2, status: 'sold' },
    { petId: '-3', quantity: 3, status: 'pending' },
    { petId: '9', quantity: 4, status: 'available' },
    { petId: '9007199254740993', quantity: 5, status: 'pending' },
    { petId: '-9223372036854775808', quantity: 6, status: 'sold' },
    { petId: '0', quantity: 7, status: 'available' },
  ]);
  const response = await api.list();
  expect(response.status).toBe(200);
  expect(response.text).toBe(
    '[{"petId":-9223372036854775808,"quantity":6,"status":"sold"},' +
      '{"petId":-3,"quantity":3,"status":"pending"},' +
      '{"petId":0,"quantity":7,"status":"available"},' +
      '{"petId":9,"quantity":4,"status":"available"},' +
      '{"petId":10,"quantity":1,"status":"available"},' +
      '{"petId":9007199254740993,"quantity":5,"status":"pending"},' +
      '{"petId":9223372036854775807,"quantity":2,"status":"sold"}]',
  );
});

test('pages followed by their Link headers give exactly the full list, no entry twice', async () => {
  const full = (await api.list()).text;
  for (const limit of [1, 3, 7, 1000]) {
    expect(await followPages(`${api.baseUrl}/inventory?limit=${limit}`)).toBe(full);
  }
});

test('status keeps only the entries of that status, in order', async () => {
  const all = JSON.parse((await api.list()).text) as { status: string }[];
  for (const status of ['available', 'pending', 'sold']) {
    const response = await get(`${api.baseUrl}/inventory?status=${status}`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toStrictEqual(all.filter((item) => item.status === status));
  }
});

test('streams a list of several Query pages in chunks (no Content-Length), complete and sorted', async () => {
  const crowded = petIdsInShard(4, 2500, 1000).map((petId) => ({
    petId,
    quantity: 2,
    status: 'pending' as const,
  }));
  await api.inventory.putMany(crowded);
  const response = await get(`${api.baseUrl}/inventory`);
  expect(response.status).toBe(200);
  expect(response.headers['transfer-encoding']).toBe('chunked');
  expect(response.headers['content-length']).toBeUndefined();
  const items = JSON.parse(response.text) as { petId: number }[];
  expect(items.length).toBe(2507);
  const crowdedListed = items.filter((item) => item.petId >= 1000 && item.petId < 1_000_000);
  expect(crowdedListed).toStrictEqual(
    crowded.map(({ petId }) => ({ petId: Number(petId), quantity: 2, status: 'pending' })),
  );
});

test('pages of 1,000 over a list of several Query pages give exactly the full list', async () => {
  expect(await followPages(`${api.baseUrl}/inventory?limit=1000`)).toBe((await api.list()).text);
});

test('a bad limit, status or cursor is 400 with the Error body', async () => {
  for (const query of ['limit=0', 'limit=1001', 'status=lost', 'cursor=abc', 'limit=2&limit=3']) {
    const response = await get(`${api.baseUrl}/inventory?${query}`);
    expect(response.status, query).toBe(400);
    expect(response.headers['content-type']).toBe('application/json');
    expect(JSON.parse(response.text)).toMatchObject({ code: 'invalid_request', status: 400 });
  }
});
