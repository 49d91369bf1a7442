/**
 * `npm start` (local/server.ts) as an operator runs it: a child process with `PORT=0` (it prints the
 * real base URL), `HOST=127.0.0.1` and `DATA_DIR` a temporary folder (docs/contract.md "Addresses", "Authentication and authorization",
 * "Operator tooling"): first-start seeding and key, persistence across restarts, `:memory:`, `API_KEY`, an
 * external DynamoDB, and clean stops on SIGTERM and SIGINT.
 */

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { startTestStore, temporaryDir } from 'local-aws/testing';
import { beforeAll, describe, expect, onTestFinished, test, vi } from 'vitest';
import { type TableId, tables } from '#lib/tables.ts';
import { childEnv, projectRoot, runCommand, runNode, scripts } from '#test/support/child-process.ts';
import { scanTable, sha256Hex, tableNames } from '#test/support/raw-tables.ts';
import { callServer } from '#test/support/server-calls.ts';
import {
  getInventory,
  type ServerProcess,
  serverArgs,
  startServerProcess,
} from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';

cleanUpAfterAll();

/** An inventory entry with petId kept exact (as a bigint) however large. */
interface Entry {
  petId: bigint;
  quantity: number;
  status: string;
}

/** Parses a list response, reading each petId from its source text. */
function parseEntries(text: string): Entry[] {
  return JSON.parse(text, (key, value, context?: { source?: string }) =>
    key === 'petId' ? BigInt(context?.source ?? 'NaN') : value,
  ) as Entry[];
}

/** `GET /v1/inventory` that must succeed: the entries. */
async function listEntries(baseUrl: string, apiKey: string): Promise<Entry[]> {
  const { status, text } = await getInventory(baseUrl, apiKey);
  expect(status, text).toBe(200);
  return parseEntries(text);
}

/** `PATCH /v1/inventory/{petId}` setting `quantity`: the status and raw body. */
async function patchQuantity(baseUrl: string, apiKey: string, petId: string, quantity: number) {
  const response = await fetch(`${baseUrl}/inventory/${petId}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ quantity }),
  });
  return { status: response.status, text: await response.text() };
}

/** The base URL a start with PORT=0 and HOST=127.0.0.1 must print: the real port, never 0. */
const baseUrlPattern = /^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/v1$/;

/** The key `npm start` printed: on a first start ("created") or a later one. */
function printedKey(stdout: string): string | undefined {
  return /^(?:First start: created the API key "local"|API key "local"): (psk_[A-Za-z0-9_-]{43})$/m.exec(
    stdout,
  )?.[1];
}

/** Asserts that `server` answers the key it printed with 200, then stops it with exit code 0 either way. */
async function expectPrintedKeyWorks(server: ServerProcess): Promise<void> {
  try {
    expect((await getInventory(server.baseUrl, printedKey(server.stdout()) ?? '')).status).toBe(200);
  } finally {
    expect((await server.stop()).code).toBe(0);
  }
}

/** Every file under `dir`, with its bytes. */
async function filesUnder(dir: string): Promise<{ path: string; bytes: Buffer }[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => {
        const path = join(entry.parentPath, entry.name);
        return { path, bytes: await readFile(path) };
      }),
  );
}

const twoTo53 = 2n ** 53n;

/** `stderr` with each step's seconds written `N s`: the start's steps and their order, not their timings. */
const steps = (stderr: string) => stderr.replace(/\b\d+\.\d s$/gm, 'N s');

/** The progress of a start that reads the test assembly, up to the step that `failed` (default: none). */
function progressLines(failed?: 'Starting DynamoDB' | 'Starting the API'): string {
  const all = [
    'Reading the staging stack',
    'Starting DynamoDB',
    'Starting the API',
    'Creating the tables',
    'Seeding the demo inventory',
    'Starting the event functions',
  ];
  const until = failed ? all.indexOf(failed) : all.length;
  const done = all.slice(0, until).map((step) => `${step}... N s\n`);
  return failed ? `${done.join('')}${failed}... failed\n` : `${done.join('')}Started in N s\n`;
}

describe('npm start with a data folder', () => {
  let dataDir: string;
  let server: ServerProcess;
  let apiKey: string;
  let entriesAtFirstStart: Entry[];

  beforeAll(async () => {
    dataDir = await temporaryDir('server-data-');
    server = await startServerProcess({ DATA_DIR: dataDir });
    apiKey = printedKey(server.stdout()) ?? '';
  });

  test('first start prints the base URL and the docs page, seeds the demo inventory and prints the new key with a curl line', () => {
    const lines = server.stdout().split('\n');

    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(`Pet store inventory API at ${server.baseUrl} (data in ${dataDir})`);
    expect(server.baseUrl).toMatch(baseUrlPattern);
    expect(lines[1]).toBe(`API reference: ${new URL(server.baseUrl).origin}/docs`);
    expect(lines[2]).toBe('First start: seeded 24 demo entries.');
    expect(lines[3]).toBe(`First start: created the API key "local": ${apiKey}`);
    expect(apiKey).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    expect(lines[4]).toBe(`Try: curl -H 'Authorization: Bearer ${apiKey}' ${server.baseUrl}/inventory`);
    expect(lines[5]).toBe('');
  });

  test('first start says on stderr what it does, each step with its seconds, then the whole start', async () => {
    await vi.waitFor(() => expect(steps(server.stderr())).toBe(progressLines()));
  });

  test('the printed key works; the demo inventory has 20+ entries, all three statuses and a petId above 2^53', async () => {
    entriesAtFirstStart = await listEntries(server.baseUrl, apiKey);

    expect(entriesAtFirstStart.length).toBeGreaterThanOrEqual(20);
    expect(new Set(entriesAtFirstStart.map((entry) => entry.status))).toStrictEqual(
      new Set(['available', 'pending', 'sold']),
    );
    expect(entriesAtFirstStart.some((entry) => entry.petId > twoTo53)).toBe(true);
    expect(entriesAtFirstStart.map((entry) => entry.petId)).toContain(9223372036854775807n);
  });

  test('the data folder advertises the running DynamoDB endpoint', async () => {
    expect(await readFile(join(dataDir, 'endpoint'), 'utf8')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
  });

  test('a second npm start on the data folder in use exits 1 with a clear message and leaves it alone', async () => {
    const endpoint = await readFile(join(dataDir, 'endpoint'), 'utf8');

    const second = await runNode(scripts.server, serverArgs(), {
      env: childEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' }),
    });

    expect(second).toStrictEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: expect.any(String),
    });
    expect(steps(second.stderr)).toBe(
      `${progressLines('Starting DynamoDB')}npm start: the data folder ${dataDir} is in use by the DynamoDB at ${endpoint.trim()} (is npm start already running?): stop it or set another DATA_DIR\n`,
    );
    expect(await readFile(join(dataDir, 'endpoint'), 'utf8')).toBe(endpoint);
    expect((await getInventory(server.baseUrl, apiKey)).status).toBe(200);
  });

  test('SIGTERM exits 0 promptly, prints Stopped., removes the endpoint file; the generated key is stored only hashed', async () => {
    expect(await patchQuantity(server.baseUrl, apiKey, '9223372036854775807', 77)).toStrictEqual({
      status: 200,
      text: '{"petId":9223372036854775807,"quantity":77,"status":"pending"}',
    });

    const stopped = await server.stop('SIGTERM');

    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5000);
    expect(stopped.stdout.endsWith('\nStopped.\n')).toBe(true);
    expect(existsSync(join(dataDir, 'endpoint'))).toBe(false);
    const files = await filesUnder(dataDir);
    expect(
      files.filter(({ bytes }) => bytes.includes(apiKey.slice(4))).map(({ path }) => path),
    ).toStrictEqual([]);
    expect(files.some(({ bytes }) => bytes.includes(sha256Hex(apiKey)))).toBe(true);
  });

  test('a restart keeps the PATCHed quantity and the key, does not reseed, and prints the same key again', async () => {
    server = await startServerProcess({ DATA_DIR: dataDir });

    expect(server.stdout()).toBe(
      `Pet store inventory API at ${server.baseUrl} (data in ${dataDir})\n` +
        `API reference: ${new URL(server.baseUrl).origin}/docs\n` +
        `API key "local": ${apiKey}\n` +
        `Try: curl -H 'Authorization: Bearer ${apiKey}' ${server.baseUrl}/inventory\n`,
    );
    const entries = await listEntries(server.baseUrl, apiKey);
    const expected = entriesAtFirstStart.map((entry) =>
      entry.petId === 9223372036854775807n ? { ...entry, quantity: 77 } : entry,
    );
    expect(entries).toStrictEqual(expected);
  });

  test('on a restart, the curl line pasted into a shell lists the inventory', async () => {
    const lines = server.stdout().split('\n');
    const pasted = lines[3]?.replace(/^Try: /, '') as string;
    const shell = await runCommand('bash', ['-c', pasted], { env: childEnv({}), cwd: projectRoot });

    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout).toBe((await getInventory(server.baseUrl, apiKey)).text);
  });

  test('SIGINT also closes cleanly, and the data written before it is kept', async () => {
    expect((await patchQuantity(server.baseUrl, apiKey, '1', 555)).status).toBe(200);

    const stopped = await server.stop('SIGINT');

    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5000);
    expect(stopped.stdout.endsWith('\nStopped.\n')).toBe(true);
    expect(existsSync(join(dataDir, 'endpoint'))).toBe(false);

    server = await startServerProcess({ DATA_DIR: dataDir });
    try {
      const entries = await listEntries(server.baseUrl, apiKey);
      expect(entries.find((entry) => entry.petId === 1n)?.quantity).toBe(555);
      expect(entries.find((entry) => entry.petId === 9223372036854775807n)?.quantity).toBe(77);
    } finally {
      expect((await server.stop('SIGTERM')).code).toBe(0);
    }
  });

  test("a revoked local key is not shown on the next start: the line to make one uses the README's KEY", async () => {
    const revoked = await runNode(scripts.keys, ['revoke', 'local'], {
      env: childEnv({ DATA_DIR: dataDir }),
    });
    expect(revoked.code, revoked.stderr).toBe(0);

    server = await startServerProcess({ DATA_DIR: dataDir });

    expect(server.stdout()).toBe(
      `Pet store inventory API at ${server.baseUrl} (data in ${dataDir})\n` +
        `API reference: ${new URL(server.baseUrl).origin}/docs\n` +
        'The key "local" cannot be shown (revoked, expired, or not kept by this store). To make a key, run:\n' +
        `  KEY=$(DATA_DIR='${dataDir}' npm run --silent keys -- create mine)\n` +
        `Try: curl -H "Authorization: Bearer $KEY" ${server.baseUrl}/inventory\n`,
    );
    const lines = server.stdout().split('\n');
    const pasted = [lines[3], lines[4]?.replace(/^Try: /, '')].join('\n');
    const shell = await runCommand('bash', ['-c', pasted], { env: childEnv({}), cwd: projectRoot });
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout.startsWith('[{"petId":')).toBe(true);
    expect((await server.stop()).code).toBe(0);
  });
});

// The next two side by side: each starts its own server on its own data.
describe.concurrent('npm start with HOST=::1', () => {
  test('prints an IPv6 base URL in brackets that works', async () => {
    const server = await startServerProcess({ DATA_DIR: ':memory:', HOST: '::1' });
    expect(server.baseUrl).toMatch(/^http:\/\/\[::1\]:[1-9][0-9]*\/v1$/);
    await expectPrintedKeyWorks(server);
  });
});

describe.concurrent('npm start on a taken port', () => {
  test('exits 1 before creating anything, so the next start is still a first start that shows the key', async () => {
    const dataDir = await temporaryDir('server-port-taken-');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const failed = await runNode(scripts.server, serverArgs(), {
        env: childEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }),
      });

      expect(failed).toStrictEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: expect.any(String),
      });
      expect(steps(failed.stderr)).toBe(
        `${progressLines('Starting the API')}npm start: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
      );
      expect(existsSync(join(dataDir, 'endpoint'))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }

    const next = await startServerProcess({ DATA_DIR: dataDir });
    expect(next.stdout()).toContain('First start: seeded 24 demo entries.\n');
    await expectPrintedKeyWorks(next);
  });
});

describe('npm start logs', () => {
  /** The stdout of a start on `level` (empty: unset) that served one PATCH (its authorizer logs at DEBUG). */
  async function logsOfOnePatch(level: string): Promise<string> {
    const server = await startServerProcess({ DATA_DIR: ':memory:', POWERTOOLS_LOG_LEVEL: level });
    try {
      expect((await patchQuantity(server.baseUrl, printedKey(server.stdout()) ?? '', '1', 5)).status).toBe(
        200,
      );
    } finally {
      await server.stop();
    }
    return server.stdout();
  }

  test('the functions log at INFO by default, at DEBUG with POWERTOOLS_LOG_LEVEL=DEBUG', async () => {
    // Two servers of their own, started side by side.
    const [byDefault, debug] = await Promise.all([logsOfOnePatch(''), logsOfOnePatch('DEBUG')]);
    expect(byDefault).not.toContain('"level":"DEBUG"');
    expect(debug).toContain('"level":"DEBUG"');
  }, 120_000);
});

describe('npm start access and delivery lines', () => {
  /** Table names no other text could contain by chance (the default inventory name is the service's name). */
  const distinctNames = Object.fromEntries(
    (Object.keys(tables) as TableId[]).map((id) => [tables[id].env, `access-log-${id}-table`]),
  );

  test('one INFO line per request (method, path, status, ms, key name) and per delivery attempt; no key, table name or stack', async () => {
    const receiver = await startWebhookReceiver();
    onTestFinished(() => receiver.close());
    const server = await startServerProcess({
      DATA_DIR: ':memory:',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      ...distinctNames,
    });
    onTestFinished(async () => {
      await server.stop();
    });
    const apiKey = printedKey(server.stdout()) ?? '';
    const created = await callServer(server, apiKey, 'POST', '/webhook-endpoints', {
      url: `${receiver.endpoint}/hooks`,
    });
    expect(created.status).toBe(201);
    expect((await patchQuantity(server.baseUrl, apiKey, '1', 6)).status).toBe(200);
    expect((await getInventory(server.baseUrl, 'psk_not-a-key')).status).toBe(401);
    await vi.waitFor(() => expect(receiver.requests).not.toHaveLength(0), { timeout: 20_000, interval: 100 });

    /** The JSON lines of stdout with `message`. */
    const logged = (message: string) =>
      server
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.message === message);
    await vi.waitFor(() => expect(logged('access')).toHaveLength(3));
    const access = { level: 'INFO', responseLatency: expect.any(Number), requestId: expect.any(String) };
    expect(logged('access')).toEqual([
      expect.objectContaining({
        ...access,
        httpMethod: 'POST',
        resourcePath: '/webhook-endpoints',
        status: 201,
        principalId: 'local',
      }),
      expect.objectContaining({
        ...access,
        httpMethod: 'PATCH',
        resourcePath: '/inventory/{petId}',
        status: 200,
        principalId: 'local',
      }),
      expect.objectContaining({
        ...access,
        httpMethod: 'GET',
        resourcePath: '/inventory',
        status: 401,
        principalId: '-',
      }),
    ]);
    // The PATCH's event (the seeded entries' events may reach the new endpoint too, in any order).
    await vi.waitFor(
      () =>
        expect(logged('webhook attempt')).toContainEqual(
          expect.objectContaining({
            level: 'INFO',
            endpointId: created.body.id,
            eventId: expect.stringMatching(/^inventory\.1\.[0-9]+$/),
            attempt: 1,
            status: 204,
            ms: expect.any(Number),
          }),
        ),
      { timeout: 10_000 },
    );
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    for (const line of lines) {
      expect(line).not.toContain(apiKey.slice(4));
      expect(line).not.toMatch(/bearer/i);
      expect(line).not.toMatch(/^\s+at |\\n\s+at /);
      for (const table of Object.values(distinctNames)) expect(line).not.toContain(table);
    }
  }, 90_000);
});

describe('npm start with DATA_DIR=:memory:', () => {
  test('keeps nothing across restarts and creates no folder', async () => {
    const cwd = await temporaryDir('server-cwd-');
    const first = await startServerProcess({ DATA_DIR: ':memory:' }, { cwd });
    const firstKey = printedKey(first.stdout()) ?? '';
    expect(first.stdout()).toContain('First start: seeded 24 demo entries.\n');
    expect(firstKey).not.toBe('');
    expect(await patchQuantity(first.baseUrl, firstKey, '1', 999)).toMatchObject({ status: 200 });
    expect((await first.stop()).code).toBe(0);

    const second = await startServerProcess({ DATA_DIR: ':memory:' }, { cwd });
    try {
      const secondKey = printedKey(second.stdout()) ?? '';
      expect(second.stdout()).toContain('First start: seeded 24 demo entries.\n');
      expect(secondKey).toMatch(/^psk_/);
      expect(secondKey).not.toBe(firstKey);
      expect((await getInventory(second.baseUrl, firstKey)).status).toBe(401);
      const entries = await listEntries(second.baseUrl, secondKey);
      expect(entries.find((entry) => entry.petId === 1n)?.quantity).toBe(20);
    } finally {
      expect((await second.stop()).code).toBe(0);
    }
    expect(await readdir(cwd)).toStrictEqual([]);
  });
});

describe('npm start with API_KEY', () => {
  test.concurrent.each(['short-key', `${'a'.repeat(40)} b`, `${'é'.repeat(40)}`])(
    'refuses API_KEY %j (too short, or not a bearer token) with exit 1 before creating anything',
    async (apiKey) => {
      const dataDir = await temporaryDir('server-bad-api-key-');
      const failed = await runNode(scripts.server, serverArgs(), {
        env: childEnv({ DATA_DIR: dataDir, API_KEY: apiKey }),
      });
      expect(failed).toStrictEqual({ code: 1, signal: null, stdout: '', stderr: expect.any(String) });
      expect(steps(failed.stderr)).toBe(
        'Reading the staging stack... N s\n' +
          'npm start: API_KEY must be at least 32 characters of letters, digits and -._~+/ (a bearer token); ' +
          'leave it unset to get a generated key, or make one with `npm run keys -- create <name>`\n',
      );
      expect(await readdir(dataDir)).toStrictEqual([]);
    },
  );

  test('accepts that key, never prints it, and stores it only hashed', async () => {
    const dataDir = await temporaryDir('server-api-key-');
    const apiKey = `psk_${randomBytes(32).toString('base64url')}`;
    const server = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey });

    expect(server.stdout()).toBe(
      `Pet store inventory API at ${server.baseUrl} (data in ${dataDir})\n` +
        `API reference: ${new URL(server.baseUrl).origin}/docs\n` +
        'First start: seeded 24 demo entries.\n' +
        `Try: curl -H "Authorization: Bearer $API_KEY" ${server.baseUrl}/inventory\n`,
    );
    const pasted = `curl -H "Authorization: Bearer $API_KEY" ${server.baseUrl}/inventory`;
    const shell = await runCommand('bash', ['-c', pasted], { env: childEnv({ API_KEY: apiKey }) });
    expect(shell.stdout).toBe((await getInventory(server.baseUrl, apiKey)).text);
    expect((await getInventory(server.baseUrl, apiKey)).status).toBe(200);
    const stopped = await server.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stdout + stopped.stderr).not.toContain(apiKey);

    const files = await filesUnder(dataDir);
    expect(files.filter(({ bytes }) => bytes.includes(apiKey)).map(({ path }) => path)).toStrictEqual([]);
    expect(
      files.filter(({ bytes }) => bytes.includes(apiKey.slice(4))).map(({ path }) => path),
    ).toStrictEqual([]);
    // The grep can see stored strings: the key's digest is there.
    expect(files.some(({ bytes }) => bytes.includes(sha256Hex(apiKey)))).toBe(true);
  });

  test('the stored key keeps working after a restart without API_KEY', async () => {
    const dataDir = await temporaryDir('server-api-key-restart-');
    const apiKey = `psk_${randomBytes(32).toString('base64url')}`;
    const first = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey });
    expect((await first.stop()).code).toBe(0);

    const second = await startServerProcess({ DATA_DIR: dataDir });
    onTestFinished(async () => {
      await second.stop();
    });
    expect((await getInventory(second.baseUrl, apiKey)).status).toBe(200);
  });
});

describe('npm start with AWS_ENDPOINT_URL_DYNAMODB', () => {
  test('uses that DynamoDB: creates and seeds the tables there and leaves DATA_DIR untouched', async () => {
    const db = await startTestStore();
    onTestFinished(() => db.close());
    const dataDir = join(await temporaryDir('server-external-'), 'unused');
    expect(await tableNames(db.client)).toStrictEqual([]);

    const server = await startServerProcess({ DATA_DIR: dataDir, ...storeVariables(db) });
    try {
      const apiKey = printedKey(server.stdout()) ?? '';
      expect(server.stdout().split('\n')[0]).toBe(
        `Pet store inventory API at ${server.baseUrl} (DynamoDB at ${db.endpoint})`,
      );
      expect((await tableNames(db.client)).sort()).toStrictEqual(Object.values(testTableNames).sort());
      const stored = await scanTable(db.client, testTableNames.inventory);
      expect(stored).toHaveLength(24);
      const keys = await scanTable(db.client, testTableNames.apiKeys);
      expect(keys.map((key) => key.keyDigest?.S)).toStrictEqual([sha256Hex(apiKey)]);
      expect(await listEntries(server.baseUrl, apiKey)).toHaveLength(24);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
    expect(existsSync(dataDir)).toBe(false);
    expect(await tableNames(db.client)).toHaveLength(Object.keys(testTableNames).length);
  });
});
