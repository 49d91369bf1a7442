/**
 * A webhook endpoint's create answered after the SDK's request timeout, with another write of the same key in
 * between (docs/contract.md "Exactly once under retries" and "History and events": one endpoint per key and URL).
 * The store commits the create's transaction and holds its answer (test/support/slow-answer-hook.ts, preloaded
 * into `npm start`); while it is held, the key creates another endpoint; the SDK then sends the transaction again
 * with its own ClientRequestToken, which DynamoDB answers as committed. The client gets the 201 with the secret,
 * and the tables hold one endpoint for the URL.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { temporaryDir } from '@pet-store/local-aws/testing';
import { beforeAll, expect, test, vi } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { callServer, storeTable } from '#test/support/server-calls.ts';
import { type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';

const hook = pathToFileURL(join(import.meta.dirname, '../support/slow-answer-hook.ts')).href;
const apiKey = generateApiKey();

let server: ServerProcess;
let dataDir: string;
let armedFile: string;
cleanUpAfterAll(() => server?.stop('SIGKILL'));

beforeAll(async () => {
  const dir = await temporaryDir('endpoint-slow-answer-');
  dataDir = join(dir, 'data');
  armedFile = join(dir, 'armed');
  server = await startServerProcess({
    DATA_DIR: dataDir,
    API_KEY: apiKey,
    NODE_OPTIONS: `--import=${hook}`,
    SLOW_ARMED: armedFile,
  });
}, 60_000);

const create = (url: string) => callServer(server, apiKey, 'POST', '/webhook-endpoints', { url });

/** The stored endpoints at `url`: their ids. */
async function endpointsAt(url: string): Promise<string[]> {
  const items = await storeTable(dataDir, 'webhookEndpoints');
  return items.filter((item) => item.url?.S === url).map((item) => String(item.subscriptionId?.S));
}

test('createWebhookEndpoint committed and answered late, another create in between: 201 with the secret, one endpoint for the URL', async () => {
  const url = 'http://127.0.0.1:9/slow-create';
  const between = 'http://127.0.0.1:9/in-between';
  await writeFile(armedFile, 'TransactWriteItems');
  const slow = create(url);
  // The transaction is committed while its answer is held: another write of the same key's endpoints now.
  await vi.waitFor(async () => expect(await endpointsAt(url)).toHaveLength(1), {
    timeout: 10_000,
    interval: 50,
  });
  expect(existsSync(armedFile), 'the slow answer was armed and taken').toBe(false);
  const other = await create(between);
  expect(other.status).toBe(201);

  const answer = await slow;
  expect(answer.status).toBe(201);
  expect(answer.body).toMatchObject({ url, state: 'enabled', secret: expect.stringMatching(/^whsec_/) });
  expect(await endpointsAt(url)).toStrictEqual([answer.body.id]);
  const owners = await storeTable(dataDir, 'webhookEndpointOwners');
  expect(owners.map((item) => item.endpointIds?.SS?.sort())).toStrictEqual([
    [answer.body.id, other.body.id].sort(),
  ]);
  expect(owners.map((item) => item.urlHashes?.SS?.length)).toStrictEqual([2]);

  // The URL again: 200 with the same endpoint, never its secret.
  const again = await create(url);
  expect([again.status, again.body.id, again.body.secret]).toStrictEqual([200, answer.body.id, undefined]);
}, 60_000);
