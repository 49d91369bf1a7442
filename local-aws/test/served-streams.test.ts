/**
 * The stream mappings of a template served by `startLocalAws` (behaviour.md D7, D14), on streamed-template.ts's
 * template: their starting checkpoints are saved before it returns, so the writes a caller makes before `open()`
 * (its seeding) are read as writes after the mapping's creation, as a deployed mapping exists before any write
 * to its table; and a batch not yet checkpointed when the serving process is killed is delivered again.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, expect, test, vi } from 'vitest';
import { inMemory } from '../dynamodb/dynamodb.ts';
import type { ServedTemplate } from '../serve.ts';
import { removeTemporaryDirs, temporaryDir } from '../testing/temporary-dirs.ts';
import { testTables } from './support/fixture-tables.ts';
import { serveStreamed } from './support/streamed-template.ts';

const served: ServedTemplate[] = [];
afterAll(async () => {
  await Promise.all(served.splice(0).map((one) => one.close()));
  await removeTemporaryDirs();
});

/** One invocation as the stand-in consumer logged it. */
interface Invocation {
  sequences: string[];
  actions: string[];
  eventNames: string[];
  endpoint: string;
}

/** Waits until `logFile` holds an invocation `match` accepts; resolves with every invocation logged. */
function invocationsUntil(
  logFile: string,
  match: (invocation: Invocation) => boolean,
): Promise<Invocation[]> {
  return vi.waitFor(
    async () => {
      const invocations = (await readFile(logFile, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Invocation);
      expect(invocations.some(match), JSON.stringify(invocations)).toBe(true);
      return invocations;
    },
    { timeout: 30_000, interval: 50 },
  );
}

test('D7: a LATEST mapping delivers the writes made between startLocalAws and open(), with the served endpoint', async () => {
  const dir = await temporaryDir('served-streams-');
  const logFile = join(dir, 'invocations.log');
  await writeFile(logFile, '');
  const { served: one, client } = await serveStreamed({
    dataDir: inMemory,
    assemblyDir: dir,
    logFile,
    startingPosition: 'LATEST',
  });
  served.push(one);
  await client.send(
    new PutItemCommand({
      TableName: testTables.items,
      Item: { itemId: { N: '1' }, action: { S: 'seeded' } },
    }),
  );
  client.destroy();

  one.open();
  const [first] = await invocationsUntil(logFile, () => true);
  expect(first).toMatchObject({
    actions: ['seeded'],
    eventNames: ['INSERT'],
    endpoint: one.variables.AWS_ENDPOINT_URL_DYNAMODB,
  });
}, 60_000);

test('D14: a batch not checkpointed when the serving process is killed (SIGKILL) is delivered again after a restart', async () => {
  const dir = await temporaryDir('served-streams-kill-');
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'invocations.log');
  await writeFile(logFile, '');
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./support/stream-process.ts', import.meta.url))],
    {
      env: { ...process.env, STORE_DIR: dataDir, STREAM_LOG: logFile },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = once(child, 'close');
  try {
    // The failing batch has been invoked: it is retried, never checkpointed.
    await invocationsUntil(logFile, (invocation) => invocation.actions.includes('throw'));
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  const [failed] = await invocationsUntil(logFile, () => true);

  const { served: restarted, client } = await serveStreamed({
    dataDir,
    assemblyDir: dir,
    logFile,
    startingPosition: 'TRIM_HORIZON',
    environment: { STREAM_ACCEPT_ALL: 'true' },
  });
  served.push(restarted);
  client.destroy();
  const before = (await invocationsUntil(logFile, () => true)).length;
  restarted.open();
  const after = await invocationsUntil(
    logFile,
    (invocation) => invocation.endpoint === restarted.variables.AWS_ENDPOINT_URL_DYNAMODB,
  );
  expect(after.slice(before)[0]?.sequences).toStrictEqual(failed?.sequences);
}, 90_000);
