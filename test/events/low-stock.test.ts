/**
 * Reorder points end to end on the local API serving the synthesized stack with its event path
 * (docs/contract.md "Inventory semantics": reorder points; "History and events"): one `inventory.low_stock` per
 * crossing, to a webhook endpoint that names the type (verified with `standardwebhooks`) and in the events list;
 * `lowStock=true` lists the low entries once the change records' consumer has indexed them, with `status` and
 * pages.
 */
import { Webhook } from 'standardwebhooks';
import { beforeAll, expect, test } from 'vitest';
import { storeNewKey } from '#test/support/key-records.ts';
import { validateWebhookBody } from '#test/support/openapi-validator.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi, unthrottled } from '#test/support/test-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

let api: TestApi;
let receiver: WebhookReceiver;
/** The client's key, as `Bearer <key>`. */
let client: string;
beforeAll(async () => {
  api = await startTestApi({ events: true });
  receiver = await startWebhookReceiver();
  client = `Bearer ${await storeNewKey(api.keys, 'shop-till', unthrottled)}`;
});
cleanUpAfterAll(
  () => api?.close(),
  () => receiver?.close(),
);

/** `method path` with the client's key and a JSON body: status and body text. */
function call(method: string, path: string, body?: string) {
  return api.request(method, path, {
    headers: { Authorization: client, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
}

/** PATCHes the entry of `petId` with `body`, asserting 200. */
async function patch(petId: string, body: string) {
  const response = await call('PATCH', `/inventory/${petId}`, body);
  expect(response.status, response.text).toBe(200);
}

/** The events list's `inventory.low_stock` events of `petId`, oldest first: `[id, data]`. */
async function lowStockEvents(petId: string): Promise<[string, string][]> {
  const response = await call('GET', '/events?type=inventory.low_stock&limit=1000');
  expect(response.status, response.text).toBe(200);
  return [
    ...response.text.matchAll(
      /\{"id":"([^"]+)","type":"inventory\.low_stock","timestamp":"[^"]+","data":(\{[^}]*\})\}/g,
    ),
  ]
    .filter(([, id]) => id?.startsWith(`inventory_low_stock.${petId}.`))
    .map(([, id, data]) => [id as string, data as string]);
}

const petId = '9007199254740993';

test('one inventory.low_stock per crossing: down through the point, not further down nor up, down to it again, the point raised above the stock', async () => {
  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}/hooks`, events: ['inventory.low_stock'] }),
  );
  expect(created.status, created.text).toBe(201);
  const { secret } = JSON.parse(created.text) as { secret: string };
  const added = await call('POST', '/pets', `{"id": ${petId}, "name": "Low", "status": "available"}`);
  expect(added.status, added.text).toBe(201);

  await patch(petId, '{"quantity": 10, "reason": "arrival"}'); // 2: not low (no point)
  await patch(petId, '{"reorderPoint": 5}'); // no record: 10 > 5
  await patch(petId, '{"quantity": 5, "reason": "sale"}'); // 3: down to the point: low
  await patch(petId, '{"quantity": 3, "reason": "sale"}'); // 4: further down: no event
  await patch(petId, '{"quantity": 8, "reason": "return"}'); // 5: up: no event
  await patch(petId, '{"quantity": 5, "reason": "loss"}'); // 6: down to it again: low
  await patch(petId, '{"quantity": 9, "reason": "arrival"}'); // 7: not low
  await patch(petId, '{"reorderPoint": 10}'); // the point raised above the stock: low at 7
  // The barrier: a later crossing of the same pet, in the same log of the events list.
  await patch(petId, '{"quantity": 20, "reason": "arrival"}'); // 8: not low
  await patch(petId, '{"reorderPoint": 20}'); // low at 8

  const expected: [string, string][] = [
    [`inventory_low_stock.${petId}.3.5`, `{"petId":${petId},"quantity":5,"reorderPoint":5,"sequence":3}`],
    [`inventory_low_stock.${petId}.6.5`, `{"petId":${petId},"quantity":5,"reorderPoint":5,"sequence":6}`],
    [`inventory_low_stock.${petId}.7.10`, `{"petId":${petId},"quantity":9,"reorderPoint":10,"sequence":7}`],
    [`inventory_low_stock.${petId}.8.20`, `{"petId":${petId},"quantity":20,"reorderPoint":20,"sequence":8}`],
  ];
  await expect
    .poll(async () => (await lowStockEvents(petId)).some(([id]) => id === expected[3]?.[0]), {
      timeout: 30_000,
    })
    .toBe(true);
  expect(await lowStockEvents(petId)).toStrictEqual(expected);

  const deliveredIds = () =>
    new Set(receiver.requests.map((request) => String(request.headers['webhook-id'])));
  await expect.poll(() => expected.every(([id]) => deliveredIds().has(id)), { timeout: 30_000 }).toBe(true);
  expect([...deliveredIds()].sort()).toStrictEqual(expected.map(([id]) => id).sort());
  for (const request of receiver.requests) {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    expect(validateWebhookBody('inventory.low_stock', request.body)).toStrictEqual([]);
    const id = String(request.headers['webhook-id']);
    const data = expected.find(([expectedId]) => expectedId === id)?.[1];
    expect(request.body).toMatch(
      new RegExp(
        `^\\{"type":"inventory\\.low_stock","timestamp":"[^"]+\\.000Z","data":${data?.replace(/[{}]/g, '\\$&')}\\}$`,
      ),
    );
  }
}, 120_000);

test('lowStock=true lists the low entries (with status and pages) once indexed, and an entry no longer low is gone', async () => {
  await api.inventory.putMany([
    { petId: '-9223372036854775808', quantity: 1, status: 'available', reorderPoint: 5 },
    { petId: '11', quantity: 2, status: 'pending', reorderPoint: 2 },
    { petId: '12', quantity: 9, status: 'available', reorderPoint: 5 },
    { petId: '13', quantity: 0, status: 'available' },
    { petId: '9223372036854775807', quantity: 0, status: 'available', reorderPoint: 0 },
  ]);
  const low = [
    '{"petId":-9223372036854775808,"quantity":1,"status":"available","reorderPoint":5}',
    '{"petId":11,"quantity":2,"status":"pending","reorderPoint":2}',
    `{"petId":${petId},"quantity":20,"status":"available","reorderPoint":20}`,
    '{"petId":9223372036854775807,"quantity":0,"status":"available","reorderPoint":0}',
  ];
  await expect
    .poll(async () => (await call('GET', '/inventory?lowStock=true')).text, { timeout: 30_000 })
    .toBe(`[${low.join(',')}]`);

  const available = await call('GET', '/inventory?lowStock=true&status=available');
  expect(available.text).toBe(`[${[low[0], low[2], low[3]].join(',')}]`);

  const first = await call('GET', '/inventory?lowStock=true&status=available&limit=2');
  expect(first.text).toBe(`[${low[0]},${low[2]}]`);
  const link = first.headers.get('link') ?? '';
  expect(link).toMatch(
    /^<\/v1\/inventory\?limit=2&status=available&lowStock=true&cursor=[\w.-]+>; rel="next"$/,
  );
  const next = /^<\/v1(\/inventory\?[^>]+)>/.exec(link)?.[1] as string;
  const second = await call('GET', next);
  expect([second.status, second.text, second.headers.get('link')]).toStrictEqual([200, `[${low[3]}]`, null]);
  const otherFilter = await call('GET', next.replace('lowStock=true&', ''));
  expect(JSON.parse(otherFilter.text)).toStrictEqual({
    code: 'invalid_request',
    message: 'cursor was issued for another lowStock filter: keep the lowStock of the first page',
    status: 400,
  });

  // No longer low: gone at once (the list checks quantity <= reorderPoint again), whatever the index holds.
  await patch('11', '{"quantity": 3, "reason": "arrival"}');
  expect((await call('GET', '/inventory?lowStock=true&status=pending')).text).toBe('[]');
  await patch('-9223372036854775808', '{"reorderPoint": null}');
  expect((await call('GET', '/inventory?lowStock=true')).text).toBe(`[${low[2]},${low[3]}]`);
}, 120_000);
