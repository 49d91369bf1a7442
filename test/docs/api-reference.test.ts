/**
 * The API reference page (infra/docs/api-reference.ts, docs/api-reference.md) in headless Chromium: served by
 * the local server at `/docs` and written by `npm run docs` as one file, it shows every operation of
 * openapi.yaml (method, path and operationId), and loads nothing from any other origin. Served on a port other
 * than 3000, "Try it out" works with the page's defaults and shows int64 petIds digit for digit.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openapiFile } from '#infra/docs/api-reference.ts';
import { childEnv, runNode } from '#test/support/child-process.ts';
import { type Chromium, startChromium } from '#test/support/chromium.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';
import { removeTemporaryDirs, temporaryDir } from '#test/support/temporary-dirs.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of openapi.yaml as `METHOD path operationId`, sorted. */
async function describedOperations(): Promise<string[]> {
  const description = parse(await readFile(openapiFile, 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  return Object.entries(description.paths)
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

let browser: Chromium;
let api: TestApi;
/** Every URL the pages requested. */
const requested: string[] = [];

beforeAll(async () => {
  [browser, api] = await Promise.all([startChromium(), startTestApi({ seed: false })]);
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

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page.locator('.auth-container input').fill(api.apiKey);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('#operations-inventory-listInventory');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = operation.locator('.live-responses-table tbody .response');
    await response.waitFor({ timeout: 30_000 });
    expect(await response.locator('.response-col_status').textContent()).toBe('200');
    const body = await response.locator('.response-col_description pre').first().textContent();
    expect(body?.match(/"petId": *-?[0-9]+/g)).toEqual(petIds.map((petId) => `"petId": ${petId}`));
    // The operation's documented example response (the int64 maximum) too: no integer is shown rounded.
    const shown = new Set((await operation.textContent())?.match(/-?[0-9]{16,}/g));
    expect(shown).toEqual(new Set(petIds));

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

  it('is written by `npm run docs` as one static file that shows every operation offline', async () => {
    const file = join(await temporaryDir('api-reference-'), 'api-reference.html');
    const result = await runNode('infra/docs/build-docs.ts', [file], { env: childEnv({}) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`API reference written to ${file}\n`);

    requested.length = 0;
    const page = await browser.context.newPage();
    const url = pathToFileURL(file).href;
    expect(await shownOperations(page, url)).toEqual(await describedOperations());
    expect(requested.filter((request) => request !== url && !request.startsWith('data:'))).toEqual([]);
    await page.close();
  });
});
