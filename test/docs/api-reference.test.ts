/**
 * The API reference page (infra/docs/api-reference.ts) in headless Chromium: served by the local server at
 * `/docs` and written by `npm run docs` as one file, it shows every operation of openapi.yaml (method, path and
 * operationId), and loads nothing from any other origin.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openapiFile } from '#infra/docs/api-reference.ts';
import { childEnv, runNode } from '#test/support/child-process.ts';
import { type Chromium, startChromium } from '#test/support/chromium.ts';
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
