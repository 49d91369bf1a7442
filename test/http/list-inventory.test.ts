/**
 * listInventory over HTTP (docs/service-spec.md §4.1; docs/contract.md "Inventory semantics"): the whole list
 * streamed in chunks, sorted by petId in numeric order, each element with exactly petId, quantity and status;
 * pages followed by their `Link` headers; the status filter.
 */
import { request } from 'node:http';
import { expect, test } from 'vitest';
import { crowdedShard, int64Inventory, listBody } from '#test/support/inventory-fixtures.ts';
import { testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite();

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
  await api.inventory.putMany(int64Inventory);
  const response = await api.list();
  expect(response.status).toBe(200);
  expect(response.text).toBe(listBody(int64Inventory));
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
  const crowded = crowdedShard(4, 2500, 1000, 2, 'pending');
  await api.inventory.putMany(crowded);
  const response = await get(`${api.baseUrl}/inventory`);
  expect(response.status).toBe(200);
  expect(response.headers['transfer-encoding']).toBe('chunked');
  expect(response.headers['content-length']).toBeUndefined();
  expect(response.text).toBe(listBody([...int64Inventory, ...crowded]));
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
