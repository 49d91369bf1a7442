/**
 * The README's receiver on a machine whose `node` is older than 22 (Debian's Node 20 here, or
 * `OLD_NODE_PATH`): run as the README says, `node receiver.mjs` stops with the receiver's own error, and the
 * README's line for that case (the project's Node 24, `../pet-store/node_modules/.bin/node receiver.mjs`), run
 * as written from a receiver folder beside the project, verifies a signed delivery and prints its ids digit
 * for digit. Here in test/client, a full-tier folder: it starts the receiver as a process (docs/testing.md).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { removeTemporaryDirs, temporaryDir } from 'local-aws/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childEnv, projectRoot, runCommand } from '#test/support/child-process.ts';

/** A Node.js older than 22: Debian's `nodejs` (Node 20), or `OLD_NODE_PATH`. */
const oldNode = process.env.OLD_NODE_PATH || '/usr/bin/node';

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
/** The README's receiver program (its JavaScript block). */
const program = /```js\n([\s\S]*?)```/.exec(readme)?.[1] as string;
/** The README's command lines (its `sh` blocks), one per line. */
const commands = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(
  (block) => block[1]?.split('\n') ?? [],
);
/** The README's line that starts the receiver on the project's Node, its comment cut. */
const projectNodeLine = commands
  .find((line) => line.includes('/node_modules/.bin/node receiver.mjs'))
  ?.replace(/\s+#.*$/, '') as string;

/** A machine's environment whose `node` is {@link oldNode}: no project `node_modules/.bin` on PATH. */
const oldNodeEnv = (variables: Record<string, string>) => {
  const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules'));
  return childEnv({ ...variables, PATH: [dirname(oldNode), ...path].join(delimiter) });
};

/** A port free on 127.0.0.1 when asked. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

let receiverDir: string;
let receiver: ChildProcess | undefined;

beforeAll(async () => {
  // A project folder named as the README names it, and the receiver's folder beside it.
  const machine = await temporaryDir('receiver-node-');
  await symlink(projectRoot, join(machine, 'pet-store'));
  receiverDir = join(machine, 'receiver');
  await mkdir(join(receiverDir, 'node_modules'), { recursive: true });
  await symlink(
    join(projectRoot, 'node_modules', 'standardwebhooks'),
    join(receiverDir, 'node_modules', 'standardwebhooks'),
  );
  await writeFile(join(receiverDir, 'receiver.mjs'), program);
});
afterAll(async () => {
  if (receiver?.pid) process.kill(-receiver.pid, 'SIGKILL');
  await removeTemporaryDirs();
});

describe('the README receiver where node is older than 22', () => {
  it('stops on the machine\'s node with "exact ids need Node.js 22 or newer"', async () => {
    const env = oldNodeEnv({
      PORT: String(await freePort()),
      WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
    });
    const version = await runCommand('bash', ['-c', 'node --version'], { env });
    expect(version.stdout).toMatch(/^v20\./);
    const result = await runCommand('bash', ['-c', 'node receiver.mjs'], { env, cwd: receiverDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: exact ids need Node.js 22 or newer');
  });

  it("runs on the project's Node 24 with the README's line as written: a signed delivery printed digit for digit", async () => {
    expect(projectNodeLine).toBe(
      'PORT=4000 WEBHOOK_SECRET=whsec_... ../pet-store/node_modules/.bin/node receiver.mjs',
    );
    const port = await freePort();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const line = projectNodeLine.replace('PORT=4000', `PORT=${port}`).replace('whsec_...', secret);
    receiver = spawn('bash', ['-c', line], {
      cwd: receiverDir,
      env: oldNodeEnv({}),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    receiver.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    receiver.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const url = `http://127.0.0.1:${port}/hooks`;
    // Listening once it refuses an unsigned delivery.
    await vi.waitFor(
      async () => {
        expect(stderr).toBe('');
        expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(400);
      },
      { timeout: 20_000, interval: 100 },
    );

    const body =
      '{"type":"inventory.changed","timestamp":"2026-12-07T10:00:00.000Z","data":{"sequence":2,"petId":9223372036854775807}}';
    const sentAt = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'inventory.9223372036854775807.2',
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('inventory.9223372036854775807.2', sentAt, body),
    };
    expect((await fetch(url, { method: 'POST', headers, body })).status).toBe(204);
    await vi.waitFor(() =>
      expect(stdout).toBe(
        'inventory.9223372036854775807.2 inventory.changed {"sequence":2,"petId":9223372036854775807}\n',
      ),
    );
  });
});
