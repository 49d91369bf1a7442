/**
 * The operator tools on a local store whose server is not running (docs/contract.md "Operator tooling"): they open
 * the data folder themselves, and the next `npm start` serves what they wrote. A stale endpoint file left by a
 * crashed server does not send them to a dead address.
 */

import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryDir } from 'local-aws/testing';
import { beforeAll, expect, test } from 'vitest';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { getInventory, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';

let dataDir: string;
let filesDir: string;

beforeAll(async () => {
  dataDir = await temporaryDir('stopped-store-');
  filesDir = await temporaryDir('stopped-store-files-');
});
cleanUpAfterAll();

const env = () => childEnv({ DATA_DIR: dataDir });

test('keys and import work while the server is stopped, and the next start serves what they wrote', async () => {
  const first = await startServerProcess({ DATA_DIR: dataDir });
  expect((await first.stop()).code).toBe(0);

  const created = await runNode(scripts.keys, ['create', 'offline'], { env: env() });
  expect(created.code, created.stderr).toBe(0);
  const key = created.stdout.trim();
  const csv = join(filesDir, 'offline.csv');
  await writeFile(csv, 'petId,quantity,status\n-100,4,sold\n');
  const imported = await runNode(scripts.import, [csv], { env: env() });
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.stdout).toBe(`Imported 1 entries into local store ${dataDir}.\n`);
  expect(existsSync(join(dataDir, 'endpoint'))).toBe(false);

  const second = await startServerProcess({ DATA_DIR: dataDir });
  try {
    const { status, text } = await getInventory(second.baseUrl, key);
    expect(status).toBe(200);
    expect(text.startsWith('[{"petId":-100,"quantity":4,"status":"sold"},{"petId":1,')).toBe(true);
  } finally {
    expect((await second.stop()).code).toBe(0);
  }
});

test('after a crash (SIGKILL) the stale endpoint file stops neither the tools nor the next start', async () => {
  const crashed = await startServerProcess({ DATA_DIR: dataDir });
  const endpoint = await readFile(join(dataDir, 'endpoint'), 'utf8');
  const killed = await crashed.stop('SIGKILL');
  expect(killed.signal).toBe('SIGKILL');
  expect(await readFile(join(dataDir, 'endpoint'), 'utf8')).toBe(endpoint);

  const listed = await runNode(scripts.keys, ['list'], { env: env() });

  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toContain("'local'");
  const restarted = await startServerProcess({ DATA_DIR: dataDir });
  const localKey = /^API key "local": (psk_\S+)$/m.exec(restarted.stdout())?.[1] as string;
  expect(restarted.stdout()).toBe(
    `Pet store inventory API at ${restarted.baseUrl} (data in ${dataDir})\n` +
      `API reference: ${new URL(restarted.baseUrl).origin}/docs\n` +
      `API key "local": ${localKey}\n` +
      `Try: curl -H 'Authorization: Bearer ${localKey}' ${restarted.baseUrl}/inventory\n`,
  );
  expect((await getInventory(restarted.baseUrl, localKey)).status).toBe(200);
  expect((await restarted.stop()).code).toBe(0);
});
