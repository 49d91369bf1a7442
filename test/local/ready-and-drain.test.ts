/**
 * `npm start` ready before its first answer and drained on its way out (README "Local API"): a first start
 * answers its very first request with the seeded list; SIGINT under PATCH load answers every request it took
 * before closing the store, so every stored quantity is one a client was told about; a data folder first used
 * by `npm run sam:dynamodb` still gets the demo data and a key, and the SAM events' published key is refused.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { samApiKey } from '#infra/local/sam-fixtures.ts';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { childEnv, projectRoot, scripts, spawnNode } from '#test/support/child-process.ts';
import { freePort } from '#test/support/free-port.ts';
import { getInventory, serverArgs, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { temporaryDir } from '#test/support/temporary-dirs.ts';

cleanUpAfterAll();

/** The petId -> quantity map of a list body. */
function quantities(text: string): Map<string, number> {
  const entries = JSON.parse(text, (key, value, context?: { source?: string }) =>
    key === 'petId' ? context?.source : value,
  ) as { petId: string; quantity: number }[];
  return new Map(entries.map((entry) => [entry.petId, entry.quantity]));
}

describe('a first start', () => {
  test('answers its very first request, sent as soon as the port accepts, with the seeded list', async () => {
    const port = await freePort();
    const apiKey = generateApiKey();
    const env = childEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: await temporaryDir('ready-drain-'),
      API_KEY: apiKey,
    });
    const { child, exited } = spawnNode(scripts.server, serverArgs(), env, projectRoot);
    const deadline = Date.now() + 60_000;
    let first: { status: number; text: string } | undefined;
    while (!first && Date.now() < deadline) {
      first = await getInventory(`http://127.0.0.1:${port}/v1`, apiKey).catch(() => undefined);
      if (!first) await sleep(5);
    }
    expect(first?.status, first?.text).toBe(200);
    expect(quantities(first?.text ?? '[]').size).toBe(24);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  }, 90_000);
});

describe('SIGINT under load', () => {
  test('answers every request it accepted, and stores only quantities a client was told', async () => {
    const dataDir = await temporaryDir('ready-drain-');
    const apiKey = generateApiKey();
    const server = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey, API_KEY_RATE: '1000' });
    const before = quantities((await getInventory(server.baseUrl, apiKey)).text);
    const petIds = [...before.keys()];
    const sent = petIds.map((petId, index) =>
      fetch(`${server.baseUrl}/inventory/${petId}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ quantity: 1000 + index }),
      }).then(
        async (response) => ({ status: response.status, text: await response.text() }),
        () => undefined,
      ),
    );
    await sleep(30);
    const stopped = await server.stop('SIGINT');
    const answers = await Promise.all(sent);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(/^Stopped\.$/m);

    const restarted = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey });
    const after = quantities((await getInventory(restarted.baseUrl, apiKey)).text);
    await restarted.stop('SIGTERM');
    petIds.forEach((petId, index) => {
      const answer = answers[index];
      if (answer === undefined) expect(after.get(petId), `pet ${petId}: no answer`).toBe(before.get(petId));
      else {
        expect(answer.status, answer.text).toBe(200);
        expect(after.get(petId), `pet ${petId}: answered`).toBe(1000 + index);
      }
    });
    expect(answers.filter(Boolean).length).toBeGreaterThan(0);
  }, 90_000);
});

describe('a data folder first used by npm run sam:dynamodb', () => {
  test('npm start still seeds and prints a key, and refuses the SAM events key', async () => {
    const dataDir = await temporaryDir('ready-drain-');
    const sam = spawnNode(
      scripts.samDynamoDb,
      ['--port', '0', '--data-dir', dataDir],
      childEnv({}),
      projectRoot,
    );
    const deadline = Date.now() + 30_000;
    while (!/SAM event fixtures seeded/.test(sam.output.stdout) && Date.now() < deadline) await sleep(20);
    sam.child.kill('SIGTERM');
    expect((await sam.exited).code, sam.output.stderr).toBe(0);

    const server = await startServerProcess({ DATA_DIR: dataDir });
    expect(server.stdout()).toMatch(/^First start: seeded 24 demo entries\.$/m);
    const key = /It is shown once: (psk_\S+)$/m.exec(server.stdout())?.[1] as string;
    expect((await getInventory(server.baseUrl, key)).status).toBe(200);
    const refused = await getInventory(server.baseUrl, samApiKey);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toEqual({
      code: 'unauthorized',
      message: 'a valid API key is required: send Authorization: Bearer <API_KEY>',
      status: 401,
    });
    await server.stop('SIGTERM');
  }, 90_000);
});
