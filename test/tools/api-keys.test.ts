/**
 * The key tool (`npm run keys`, infra/tools/api-keys.ts) run as a real child process against the local store
 * of a running local service (docs/contract.md "Authentication", "Operator tooling"): the service runs in this
 * process on a temporary data folder and advertises its DynamoDB in `<dataDir>/endpoint`, which the tool finds
 * from `DATA_DIR` alone.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LocalService } from '#infra/local/service.ts';
import {
  type ChildResult,
  childEnv,
  getInventory,
  killChildren,
  runNode,
  scripts,
  startServer,
} from '#test/support/child-process.ts';
import { freePort } from '#test/support/free-port.ts';
import { type LocalStore, startLocalStore } from '#test/support/local-api.ts';
import { removeTemporaryDirs, temporaryDir } from '#test/support/temporary-dirs.ts';
import { scanTable, sha256Hex, testTableNames } from '#test/support/test-dynamodb.ts';

let dataDir: string;
let service: LocalService;
let client: DynamoDBClient;
let store: LocalStore;

beforeAll(async () => {
  store = await startLocalStore('keys-tool-');
  ({ dataDir, service, client } = store);
});
afterAll(async () => {
  killChildren();
  await store?.close();
  await removeTemporaryDirs();
});

/** `npm run keys -- ...args` on the local store of {@link dataDir}. */
function keys(...args: string[]): Promise<ChildResult> {
  return runNode(scripts.keys, args, { env: childEnv({ DATA_DIR: dataDir }) });
}

/** Creates a key named `name` with the tool and returns it (asserting the tool succeeded). */
async function createKey(name: string): Promise<string> {
  const result = await keys('create', name);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** The stored record of the key with this digest, attribute by attribute. */
async function storedKey(digest: string) {
  const records = await scanTable(client, testTableNames.apiKeys);
  return records.find((record) => record.keyDigest?.S === digest);
}

const unauthorizedBody =
  '{"code":"unauthorized","message":"a valid API key is required: send Authorization: Bearer <API_KEY>","status":401}';

describe('keys --help', () => {
  test('exits 0 and describes create, list and revoke', async () => {
    const result = await keys('--help');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: keys \[options\] \[command\]$/m);
    expect(result.stdout).toMatch(/^ {2}create \[options\] <name> +create a key and print it once/m);
    expect(result.stdout).toMatch(/^ {2}list \[options\] +list keys: name, id \(digest prefix\)/m);
    expect(result.stdout).toMatch(/^ {2}revoke \[options\] <name> +revoke every active key with this name/m);
  });

  test('create --help describes the name, expiry and --env', async () => {
    const result = await keys('create', '--help');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}name +who or what the key is for$/m);
    expect(result.stdout).toMatch(
      /^ {2}--expires-in-days <days> +the key stops working after this many days$/m,
    );
    expect(result.stdout).toMatch(
      /^ {2}--env <environment> +a deployed environment instead of the local store/m,
    );
  });
});

describe('keys create', () => {
  test('prints the key once on stdout, stores only its SHA-256 digest, and the key works over HTTP', async () => {
    const before = Date.now();
    const result = await keys('create', 'alice');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^psk_[A-Za-z0-9_-]{43}\n$/);
    const key = result.stdout.trim();
    expect(result.stderr).toBe('Created key "alice". It is shown once:\n');

    const record = await storedKey(sha256Hex(key));
    expect(Object.keys(record ?? {}).sort()).toStrictEqual(['createdAt', 'keyDigest', 'name']);
    expect(record?.name).toStrictEqual({ S: 'alice' });
    const createdAt = Date.parse(record?.createdAt?.S ?? '');
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now());
    const everyStoredValue = JSON.stringify(await scanTable(client, testTableNames.apiKeys));
    expect(everyStoredValue).not.toContain(key.slice(4));

    expect(await getInventory(service.baseUrl, key)).toStrictEqual({ status: 200, text: '[]' });
  });

  test('--expires-in-days stores the expiry that many days ahead', async () => {
    const result = await keys('create', 'temporary', '--expires-in-days', '30');

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^Created key "temporary", valid until \S+Z\. It is shown once:\n$/);
    const record = await storedKey(sha256Hex(result.stdout.trim()));
    const days =
      (Date.parse(record?.expiresAt?.S ?? '') - Date.parse(record?.createdAt?.S ?? '')) / 86_400_000;
    expect(days).toBe(30);
  });

  test('--expires-in-days 0 is refused, exits 1 and stores nothing', async () => {
    const before = await scanTable(client, testTableNames.apiKeys);

    const result = await keys('create', 'never', '--expires-in-days', '0');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--expires-in-days takes a whole number of days >= 1');
    expect(await scanTable(client, testTableNames.apiKeys)).toStrictEqual(before);
  });
});

describe('keys list', () => {
  test('shows each name, id and state, never the key or its full digest', async () => {
    const key = await createKey('bob');
    const digest = sha256Hex(key);

    const result = await keys('list');

    expect(result.code).toBe(0);
    const bobLine = result.stdout.split('\n').find((line) => line.includes("'bob'"));
    expect(bobLine).toContain(`'${digest.slice(0, 12)}'`);
    expect(bobLine).toContain("'active'");
    expect(result.stdout).toContain("'local'");
    expect(result.stdout).not.toContain(key);
    expect(result.stdout).not.toContain(key.slice(4, 20));
    expect(result.stdout).not.toContain(digest);
    expect(result.stdout).not.toContain(digest.slice(0, 13));
    expect(result.stderr).toBe('');
  });
});

describe('keys revoke', () => {
  test('a revoked key is refused with 401 while another key keeps working', async () => {
    const revoked = await createKey('carol');
    const kept = await createKey('dave');

    const result = await keys('revoke', 'carol');

    expect(result).toMatchObject({ code: 0, stdout: 'Revoked 1 key(s) named "carol".\n' });
    expect(await getInventory(service.baseUrl, revoked)).toStrictEqual({
      status: 401,
      text: unauthorizedBody,
    });
    expect(await getInventory(service.baseUrl, kept)).toStrictEqual({ status: 200, text: '[]' });
    expect((await storedKey(sha256Hex(revoked)))?.revokedAt?.S).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect((await storedKey(sha256Hex(kept)))?.revokedAt).toBeUndefined();
    const list = await keys('list');
    expect(list.stdout.split('\n').find((line) => line.includes("'carol'"))).toContain("'revoked'");
  });

  test('a key used before its revocation is refused by a fresh server (no authorizer cache)', async () => {
    const key = await createKey('erin');
    expect((await getInventory(service.baseUrl, key)).status).toBe(200);

    expect((await keys('revoke', 'erin')).code).toBe(0);

    // A second server on the same DynamoDB: its authorizer has cached nothing.
    const endpoint = (await readFile(join(dataDir, 'endpoint'), 'utf8')).trim();
    const otherDataDir = await temporaryDir('keys-tool-other-');
    const fresh = await startServer({
      env: childEnv({ AWS_ENDPOINT_URL_DYNAMODB: endpoint, DATA_DIR: otherDataDir, PORT: '0' }),
    });
    try {
      expect(await getInventory(fresh.baseUrl, key)).toStrictEqual({ status: 401, text: unauthorizedBody });
    } finally {
      await fresh.stop();
    }
  });

  test('an unknown name exits 1 with a clear message', async () => {
    const result = await keys('revoke', 'nobody');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('keys: no active key named "nobody"\n');
  });
});

describe('keys with an unreachable AWS_ENDPOINT_URL_DYNAMODB', () => {
  test('names the unreachable DynamoDB instead of claiming there are no tables', async () => {
    const port = await freePort();

    const result = await runNode(scripts.keys, ['list'], {
      env: childEnv({ AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}` }),
    });

    expect(result).toStrictEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `keys: cannot use the DynamoDB at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    });
  });
});

describe('keys before any npm start', () => {
  test('fails with the clear message when the data folder has no tables', async () => {
    const emptyDir = await temporaryDir('keys-tool-empty-');

    const result = await runNode(scripts.keys, ['list'], { env: childEnv({ DATA_DIR: emptyDir }) });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('keys: the local store has no tables yet: run `npm start` once first\n');
  });
});
