/**
 * The API reference page (local/docs-page/api-reference.ts, docs/api-reference.md) in headless Chromium: served by
 * the local server at `/docs` and written by `npm run docs` as one file, it shows every operation of
 * openapi.yaml (method, path and operationId; the webhooks under their names), and loads nothing from any
 * other origin. Served on a port other than 3000, "Try it out" works with the page's defaults and shows int64
 * petIds digit for digit; every example and schema bound is shown as openapi.yaml writes it, the largest petId
 * example is pre-filled and sent digit for digit, `status` is a choice, and **Authorize** is on the first
 * screen. The file of `npm run docs` says it is read-only and sends nothing.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { removeTemporaryDirs, temporaryDir } from 'local-aws/testing';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openapiFile } from '#local/docs-page/api-reference.ts';
import { childEnv, runNode } from '#test/support/child-process.ts';
import { type Chromium, startChromium } from '#test/support/chromium.ts';
import { parseJsonExact } from '#test/support/openapi-validator.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every operation of openapi.yaml as `METHOD path operationId`, sorted: those of `paths` and, with `webhooks`,
 * the webhooks' (shown under their names, e.g. `POST inventory.changed inventoryChanged`).
 */
async function describedOperations(options: { webhooks: boolean } = { webhooks: true }): Promise<string[]> {
  const description = parse(await readFile(openapiFile, 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string }>>;
    webhooks?: Record<string, Record<string, { operationId: string }>>;
  };
  return Object.entries({ ...description.paths, ...(options.webhooks ? description.webhooks : {}) })
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => methods.includes(method))
        .map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`),
    )
    .sort();
}

/** Opens `url` and reads every operation the page shows, once the renderer has drawn them. */
async function shownOperations(page: Page, url: string): Promise<string[]> {
  await page.goto(url);
  await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
  const summaries = await page.locator('.opblock-summary').evaluateAll((elements) =>
    elements.map((element) =>
      [
        '.opblock-summary-method',
        '.opblock-summary-path, .opblock-summary-path__deprecated',
        '.opblock-summary-operation-id',
      ]
        .map(
          (selector) =>
            element
              .querySelector(selector)
              ?.textContent?.replace(/\u200b/g, '')
              .trim() ?? '',
        )
        .join(' '),
    ),
  );
  return summaries.sort();
}

/** Authorizes the page with `apiKey` as a user does: "Authorize", paste, "Authorize", "Close". */
async function authorize(page: Page, apiKey: string): Promise<void> {
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  await page.locator('.auth-container input').fill(apiKey);
  await page.locator('.auth-btn-wrapper button.authorize').click();
  await page.locator('.auth-btn-wrapper button.btn-done').click();
}

/**
 * Expands an operation, presses "Try it out" and "Execute" with no field changed: the status shown, or
 * `not sent` when the page refused to send it for a required field left empty.
 */
async function executeWithDefaults(operation: Locator): Promise<string> {
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.getByRole('button', { name: 'Execute' }).click();
  const response = operation.locator('.live-responses-table tbody .response');
  const refused = operation.locator('.validation-errors, input.invalid, textarea.invalid').first();
  await Promise.race([response.waitFor({ timeout: 30_000 }), refused.waitFor({ timeout: 30_000 })]);
  if (await refused.isVisible()) return 'not sent';
  return (await response.locator('.response-col_status').textContent()) ?? '';
}

/** Every integer of 16 digits or more in `text`: where a rounded int64 would show (9223372036854776000). */
function longIntegers(text: string | null): string[] {
  return [...new Set(text?.match(/-?[0-9]{16,}/g) ?? [])].sort();
}

/** Opens `url` with a 1280 x 720 screen, once the renderer has drawn the operations; page errors are collected. */
async function openPage(url: string): Promise<{ page: Page; pageErrors: string[] }> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 720 });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(url);
  await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
  return { page, pageErrors };
}

/** Expands an operation and waits until its `$ref`s are resolved (its first response's Schema tab is drawn). */
async function expand(operation: Locator): Promise<void> {
  await operation.locator('.opblock-summary').click();
  await operation.locator('.responses-wrapper').waitFor({ timeout: 30_000 });
}

/** Opens the Schema tab of the operation's first response and every level of it; its text. */
async function schemaText(operation: Locator): Promise<string> {
  await operation.getByRole('tab', { name: 'Schema' }).first().click();
  const schema = operation.locator('.model-example').first();
  await schema.locator('.json-schema-2020-12').first().waitFor({ timeout: 30_000 });
  // Each level drawn opens the next: array, its items, their properties (a bounded number of rounds).
  for (let level = 0; level < 6; level += 1) {
    const closed = schema.locator('button[aria-expanded="false"]');
    if ((await closed.count()) === 0) break;
    await closed.evaluateAll((buttons) => {
      for (const button of buttons) (button as unknown as { click(): void }).click();
    });
  }
  await schema.locator('.json-schema-2020-12__constraint').first().waitFor({ timeout: 30_000 });
  return (await schema.textContent()) ?? '';
}

/**
 * The README's requests against the demo store, in its order (Quick start: inventory, a shipment, pets, orders,
 * a day in the shop, history, an endpoint, events), each answered as the README says; an order's id from its
 * `Location`, a conditional update's `If-Match` from the entry's `ETag`, as a reader takes them.
 */
async function readmeSteps(): Promise<void> {
  const json = { 'Content-Type': 'application/json' };
  const send = async (
    method: string,
    path: string,
    status: number | number[],
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await api.request(method, path, {
      headers: { Authorization: api.authorization, ...(body === undefined ? {} : json), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect([status].flat(), `${method} ${path}: ${response.text}`).toContain(response.status);
    return response;
  };
  await send('GET', '/inventory', 200);
  await send('GET', '/inventory?limit=5&status=available', 200);
  const largest = await send('GET', '/inventory/9223372036854775807', 200);
  const etag = largest.headers.get('etag') ?? '';
  await send('PATCH', '/inventory/9223372036854775807', 200, { quantity: 12 }, { 'If-Match': etag });
  await send('PATCH', '/inventory/3', 200, { reorderPoint: 5 });
  await send('PATCH', '/inventory/3', 200, { adjustBy: -1, reason: 'sale' });
  await send('PATCH', '/inventory/3', 200, { adjustBy: 5, reason: 'arrival' });
  const shipment = {
    changes: [
      { petId: 3, quantity: 30, reason: 'arrival' },
      { petId: 9, status: 'pending' },
    ],
  };
  await send('POST', '/inventory/batch', 200, shipment, { 'Idempotency-Key': 'shipment-1' });
  await send('POST', '/pets', 201, { name: 'Rex', status: 'pending' });
  await send('GET', '/pets/3', 200);
  const first = await send(
    'POST',
    '/store/orders',
    201,
    { petId: 3, quantity: 2 },
    { 'Idempotency-Key': 'first-order' },
  );
  await send('GET', '/store/orders', 200);
  await send('GET', (first.headers.get('location') ?? '').replace(/^\/v1/, ''), 200);
  await send('PATCH', '/inventory/3', 200, { quantity: 30, reason: 'arrival' });
  await send('PATCH', '/inventory/6', 200, { status: 'pending' });
  await send('PATCH', '/inventory/6', 200, { status: 'sold' });
  const order = (await send('POST', '/store/orders', 201, { petId: 3, quantity: 2 })).headers.get('location');
  await send('PATCH', (order ?? '').replace(/^\/v1/, ''), 200, { status: 'approved' });
  await send('PATCH', (order ?? '').replace(/^\/v1/, ''), 200, { status: 'delivered' });
  const other = (await send('POST', '/store/orders', 201, { petId: 3, quantity: 5 })).headers.get('location');
  await send('PATCH', (other ?? '').replace(/^\/v1/, ''), 200, { status: 'cancelled' });
  await send('GET', '/inventory/3', 200);
  await send('GET', '/inventory/3/history?limit=5', 200);
  // 201, or 200 when the key holds the URL already (an earlier test executed the page's example).
  await send('POST', '/webhook-endpoints', [201, 200], {
    url: 'http://127.0.0.1:4000/hooks',
    events: ['inventory.changed'],
  });
  await send('GET', '/webhook-endpoints', 200);
  await send('GET', '/events?limit=50', 200);
}

let browser: Chromium;
let api: TestApi;
/** Every URL the pages requested. */
const requested: string[] = [];

beforeAll(async () => {
  // The event path runs, as under `npm start`: the events list holds what the README's steps changed.
  [browser, api] = await Promise.all([startChromium(), startTestApi({ seed: true, events: true })]);
  browser.context.on('request', (request) => requested.push(request.url()));
});
afterAll(async () => {
  await Promise.all([browser?.close(), api?.close()]);
  await removeTemporaryDirs();
});

describe('the API reference page', () => {
  it('is served by the local server at /docs, outside /v1, and shows every operation', async () => {
    const origin = new URL(api.baseUrl).origin;
    const response = await fetch(`${origin}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');

    requested.length = 0;
    const page = await browser.context.newPage();
    const expected = await describedOperations();
    expect(expected.length).toBeGreaterThan(0);
    expect(await shownOperations(page, `${origin}/docs`)).toEqual(expected);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
    await page.close();
  });

  it('answers "Try it out" + "Execute" on listInventory with no field changed, and shows every int64 exactly', async () => {
    const origin = new URL(api.baseUrl).origin;
    expect(new URL(origin).port).not.toBe('3000');
    const petIds = ['9007199254740993', '9223372036854775806', '9223372036854775807'];
    await api.putRawItems(petIds.map((petId, index) => inventoryRecord(petId, index + 1, 'available')));

    const page = await browser.context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${origin}/docs`);
    await page.locator('.servers select').waitFor({ timeout: 60_000 });
    expect(await page.locator('.servers select').inputValue()).toBe(`${origin}/v1`);

    await authorize(page, api.apiKey);

    const operation = page.locator('#operations-inventory-listInventory');
    expect(await executeWithDefaults(operation)).toBe('200');
    const response = operation.locator('.live-responses-table tbody .response');
    const body = await response.locator('.response-col_description pre').first().textContent();
    const stored = (await api.tableItems()).map((item) => item.petId as string);
    expect(stored).toEqual(expect.arrayContaining(petIds));
    const sorted = [...stored].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    expect(body?.match(/"petId": *-?[0-9]+/g)).toEqual(sorted.map((petId) => `"petId": ${petId}`));
    // The operation's documented example response (the int64 maximum) too: no integer is shown rounded.
    const shown = new Set((await operation.textContent())?.match(/-?[0-9]{16,}/g));
    expect(shown).toEqual(new Set(stored.filter((petId) => petId.replace('-', '').length >= 16)));

    // The page's CSP still lets it reach its own origin only: another local server gets no request.
    const other = createServer((_request, response) => response.end('[]'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1/inventory`;
    let reached = 0;
    other.on('request', () => {
      reached += 1;
    });
    const attempts = await page.evaluate(
      async (urls) =>
        Promise.all(
          urls.map((url) =>
            fetch(url).then(
              (answer) => String(answer.status),
              () => 'blocked',
            ),
          ),
        ),
      [otherUrl, `${origin}/docs`],
    );
    await new Promise((resolve) => other.close(resolve));
    expect(attempts).toEqual(['blocked', '200']);
    expect(reached).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('sends no pre-filled value that fails: every operation executed with its defaults on the demo store answers 2xx, the two on one order and the five on one webhook endpoint 404 (the example order and endpoint are not there)', async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${new URL(api.baseUrl).origin}/docs`);
      await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
      await authorize(page, api.apiKey);
      const outcomes: Record<string, string> = {};
      // The webhooks are requests the service sends, not ones the page can send: only the API's operations.
      const operationIds = (await describedOperations({ webhooks: false })).map(
        (operation) => operation.split(' ')[2] as string,
      );
      for (const id of await page
        .locator('.opblock')
        .evaluateAll((blocks) => blocks.map((block) => block.id))) {
        const operationId = id.replace(/^operations-[^-]+-/, '');
        if (!operationIds.includes(operationId)) continue;
        outcomes[operationId] = await executeWithDefaults(page.locator(`[id="${id}"]`));
      }
      expect(Object.keys(outcomes).sort()).toEqual(operationIds.sort());
      // The orderId and endpointId examples are of the documented examples, which a fresh store does not hold: 404.
      const failed = Object.entries(outcomes).filter(([, status]) => !/^2[0-9][0-9]$/.test(status));
      expect(failed.sort()).toEqual([
        ['deleteWebhookEndpoint', '404'],
        ['getOrderById', '404'],
        ['listWebhookAttempts', '404'],
        ['redeliverWebhook', '404'],
        ['rotateWebhookSecret', '404'],
        ['sendTestWebhook', '404'],
        ['updateOrder', '404'],
      ]);
    } finally {
      await page.close();
    }
  }, 240_000); // every operation in turn through the browser: more than the default 30 s on a loaded machine

  it("after the README's steps, the batch example executed twice answers 200 both times (no pre-filled Idempotency-Key, so none repeated; no stale ifMatch); the events list answers 200", async () => {
    await readmeSteps();
    const { page, pageErrors } = await openPage(`${new URL(api.baseUrl).origin}/docs`);
    /** The headers of each batch request the page sent. */
    const sent: Record<string, string>[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/inventory/batch') sent.push(request.headers());
    });
    try {
      await authorize(page, api.apiKey);
      const batch = page.locator('[id$="-batchUpdateInventory"]');
      await batch.locator('.opblock-summary').click();
      await batch.getByRole('button', { name: 'Try it out' }).click();
      expect(await batch.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).toBe('');
      const statuses: string[] = [];
      for (const attempt of [1, 2]) {
        await batch.getByRole('button', { name: 'Execute' }).click();
        const status = batch.locator('.live-responses-table tbody .response .response-col_status');
        // Each Execute clears the previous answer before drawing its own.
        await expect.poll(() => status.count(), { timeout: 30_000 }).toBe(1);
        statuses.push(`${attempt}: ${await status.textContent()}`);
        await batch.getByRole('button', { name: 'Clear' }).click();
        await expect.poll(() => status.count()).toBe(0);
      }
      expect(statuses).toEqual(['1: 200', '2: 200']);
      // Neither try carried a key (a repeated one would answer the first try's body, or 422) nor an If-Match.
      expect(
        sent.map((headers) => [headers['idempotency-key'] ?? 'none', headers['if-match'] ?? 'none']),
      ).toEqual([
        ['none', 'none'],
        ['none', 'none'],
      ]);
      const item = await api.request('GET', '/inventory/6', {
        headers: { Authorization: api.authorization },
      });
      expect(JSON.parse(item.text)).toMatchObject({ petId: 6, status: 'pending' });
      // Once the README's orders are in the events list, the page's list answers with events.
      await expect
        .poll(
          async () => {
            const listed = await api.request('GET', '/events?type=order.changed', {
              headers: { Authorization: api.authorization },
            });
            return (JSON.parse(listed.text) as unknown[]).length;
          },
          { timeout: 30_000 },
        )
        .toBeGreaterThan(0);
      const events = page.locator('[id$="-listEvents"]');
      expect(await executeWithDefaults(events)).toBe('200');
      const body = await events
        .locator('.live-responses-table tbody .response .response-col_description pre')
        .first()
        .textContent();
      const shown = JSON.parse(body ?? '') as Record<string, unknown>[];
      expect(shown.length).toBeGreaterThan(0);
      for (const event of shown)
        expect(Object.keys(event).sort()).toEqual(['data', 'id', 'timestamp', 'type']);
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('shows every example and int64 bound as openapi.yaml writes it, and sends the largest petId example digit for digit', async () => {
    const origin = new URL(api.baseUrl).origin;
    const largest = '9223372036854775807';
    await api.putRawItems([inventoryRecord(largest, 3, 'available')]);
    const { page, pageErrors } = await openPage(`${origin}/docs`);
    const source = await readFile(openapiFile, 'utf8');

    // Every operation expanded (examples of parameters, bodies and responses shown): no integer that openapi.yaml
    // does not write, so none rounded.
    for (const operation of await page.locator('.opblock').all()) await expand(operation);
    const shown = longIntegers(await page.locator('#api-reference').textContent());
    expect(shown.filter((integer) => !source.includes(integer))).toEqual([]);
    expect(shown).toEqual(expect.arrayContaining([largest, '-9223372036854775808']));

    // The Schema view: the int64 bounds and the petId examples digit for digit.
    const getInventoryItem = page.locator('#operations-inventory-getInventoryItem');
    const schema = await schemaText(getInventoryItem);
    expect(schema).toContain(`[-9223372036854775808, ${largest}]`);
    const examples = getInventoryItem.locator('.json-schema-2020-12-keyword--examples').first();
    expect(await examples.textContent()).toContain(largest);
    for (const rounded of ['9223372036854776000', '-9223372036854776000'])
      expect(schema).not.toContain(rounded);

    // addPet's "Every member" example, pre-filled by "Try it out": the id as written.
    const addPet = page.locator('#operations-pets-addPet');
    await addPet.getByRole('button', { name: 'Try it out' }).click();
    await addPet
      .locator('.opblock-section-request-body select')
      .last()
      .selectOption({ label: 'Every member' });
    expect(await addPet.locator('textarea.body-param__text').inputValue()).toContain(`"id": ${largest},`);
    await addPet.getByRole('button', { name: 'Cancel' }).click();

    // getInventoryItem with "The largest petId": pre-filled and sent as written, answered with the entry.
    await authorize(page, api.apiKey);
    await getInventoryItem.getByRole('button', { name: 'Try it out' }).click();
    const petIdRow = getInventoryItem.locator('tr[data-param-name="petId"]');
    await petIdRow.locator('select').selectOption({ label: 'The largest petId' });
    expect(await petIdRow.locator('input').inputValue()).toBe(largest);
    await getInventoryItem.getByRole('button', { name: 'Execute' }).click();
    const response = getInventoryItem.locator('.live-responses-table tbody .response');
    await response.waitFor({ timeout: 30_000 });
    expect(await getInventoryItem.locator('.request-url pre').textContent()).toBe(
      `${origin}/v1/inventory/${largest}`,
    );
    expect(await response.locator('.response-col_status').textContent()).toBe('200');
    const body = await response.locator('.response-col_description pre').first().textContent();
    expect(parseJsonExact(body ?? '')).toEqual({ petId: BigInt(largest), quantity: 3, status: 'available' });
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 240_000); // every operation expanded through the browser: more than the default 30 s on a loaded machine

  it("offers listInventory's status as a choice of the PetStatus values, and sends the one chosen", async () => {
    const origin = new URL(api.baseUrl).origin;
    const { page, pageErrors } = await openPage(`${origin}/docs`);
    await authorize(page, api.apiKey);
    const operation = page.locator('#operations-inventory-listInventory');
    await expand(operation);
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const status = operation.locator('tr[data-param-name="status"] select');
    expect(await status.locator('option').allTextContents()).toEqual(['--', 'available', 'pending', 'sold']);
    await status.selectOption('sold');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = operation.locator('.live-responses-table tbody .response');
    await response.waitFor({ timeout: 30_000 });
    expect(await operation.locator('.request-url pre').textContent()).toBe(
      `${origin}/v1/inventory?limit=100&status=sold`,
    );
    expect(await response.locator('.response-col_status').textContent()).toBe('200');
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 60_000); // a page load, an expansion and a request through the browser, on a loaded machine

  it('has Authorize on the first screen (1280 x 720), the description folded under "About this API"', async () => {
    const { page, pageErrors } = await openPage(`${new URL(api.baseUrl).origin}/docs`);
    const button = await page.getByRole('button', { name: 'Authorize' }).first().boundingBox();
    expect(button).not.toBeNull();
    expect((button?.y ?? Number.POSITIVE_INFINITY) + (button?.height ?? 0)).toBeLessThanOrEqual(720);
    const overview = page.locator('details.api-overview');
    expect(await overview.locator('summary').textContent()).toBe(
      'About this API: Addresses and versions, Stability, Authentication, Requests as API Gateway delivers them, petId, Errors, Limits',
    );
    await overview.locator('summary').click();
    expect(await overview.locator('h2').allTextContents()).toContain('Errors');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('is written by `npm run docs` as one static file that shows every operation offline', async () => {
    const file = join(await temporaryDir('api-reference-'), 'api-reference.html');
    const result = await runNode('local/docs-page/build-docs.ts', [file], { env: childEnv({}) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`API reference written to ${file}\n`);

    requested.length = 0;
    const page = await browser.context.newPage();
    const url = pathToFileURL(file).href;
    expect(await shownOperations(page, url)).toEqual(await describedOperations());

    // Read-only, and says so: no "Try it out", no Authorize; the schemas still resolve and show exactly.
    expect(await page.getByRole('note').textContent()).toBe(
      'Read-only copy: this page cannot send requests ("Try it out" is off). To try the operations, run npm start ' +
        'and open the page it serves at http://127.0.0.1:3000/docs.',
    );
    expect(await page.getByRole('button', { name: 'Authorize' }).count()).toBe(0);
    const listInventory = page.locator('#operations-inventory-listInventory');
    await expand(listInventory);
    expect(await listInventory.getByRole('button', { name: 'Try it out' }).count()).toBe(0);
    expect(await listInventory.locator('tr[data-param-name="status"] option').allTextContents()).toEqual([
      '--',
      'available',
      'pending',
      'sold',
    ]);
    expect(await schemaText(listInventory)).toContain('[-9223372036854775808, 9223372036854775807]');
    expect(await page.locator('.errors-wrapper').count()).toBe(0);
    expect(requested.filter((request) => request !== url && !request.startsWith('data:'))).toEqual([]);
    await page.close();
  });
});
