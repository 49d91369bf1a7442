/**
 * The embedded DynamoDB's data folder is private to its user (README.md "The embedded DynamoDB";
 * dynamodb/dynamodb.ts): the folder and everything in it are 0700 / 0600, also when an older version left it
 * world-readable, and a folder served by a running process is refused rather than opened twice; and its port
 * refuses web pages (no permissive CORS: dynalite alone answers any origin with `Access-Control-Allow-Origin:
 * *`, so a page the developer opens could read a table).
 */
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { describe, expect, test } from 'vitest';
import { DataFolderInUseError, startDynamoDb } from '../dynamodb/dynamodb.ts';
import { temporaryDir } from '../testing/temporary-dirs.ts';
import { dynamoDbClient, startTestStore } from '../testing/test-store.ts';
import { createTestTables, testTables } from './support/fixture-tables.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

const cleanups: (() => Promise<void>)[] = [];
cleanUpAfterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/**
 * Permission bits of `dir` (as `.`) and of every entry under it, by path relative to it, in octal with a `d`
 * prefix for folders and `f` for files (`d700`, `f600`); an entry LevelDB removed meanwhile is left out.
 */
async function modes(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const paths = [dir, ...(await readdir(dir, { recursive: true })).map((name) => join(dir, name))];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) continue;
    found[path === dir ? '.' : path.slice(dir.length + 1)] =
      `${info.isDirectory() ? 'd' : 'f'}${(info.mode & 0o777).toString(8)}`;
  }
  return found;
}

describe('the data folder', () => {
  test('a new data folder is 0700, its folders 0700 and its files (LevelDB, endpoint) 0600', async () => {
    const dataDir = join(await temporaryDir('private-store-'), 'data');
    const db = await startDynamoDb({ dataDir });
    const client = dynamoDbClient(db.endpoint, db.credentials);
    await createTestTables(client);
    await client.send(
      new PutItemCommand({
        TableName: testTables.plain,
        Item: { keyDigest: { S: 'ab' }, name: { S: 'x' } },
      }),
    );

    const running = await modes(dataDir);
    client.destroy();
    await db.close();
    const stopped = await modes(dataDir);

    for (const found of [running, stopped]) {
      expect(Object.keys(found).length).toBeGreaterThan(3);
      for (const [path, mode] of Object.entries(found)) {
        expect(`${path} ${mode}`).toBe(`${path} ${mode.startsWith('d') ? 'd700' : 'f600'}`);
      }
    }
    expect(running.endpoint).toBe('f600');
    expect(running.credentials).toBe('f600');
  });

  test('a folder an older version left world-readable (0755, files 0644) is made private on the next start', async () => {
    const dataDir = join(await temporaryDir('private-store-old-'), 'data');
    await mkdir(join(dataDir, 'dynamodb'), { recursive: true, mode: 0o755 });
    await chmod(dataDir, 0o755);
    await writeFile(join(dataDir, 'notes.txt'), 'old\n', { mode: 0o644 });

    const db = await startDynamoDb({ dataDir });
    cleanups.push(() => db.close());

    const found = await modes(dataDir);
    expect(found['.']).toBe('d700');
    expect(found.dynamodb).toBe('d700');
    expect(found['notes.txt']).toBe('f600');
  });

  test('startDynamoDb refuses a data folder served by a running process and leaves its endpoint file', async () => {
    const dataDir = join(await temporaryDir('dynamodb-in-use-'), 'data');
    const first = await startDynamoDb({ dataDir });
    cleanups.push(() => first.close());

    const refusal = await startDynamoDb({ dataDir }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DataFolderInUseError);
    expect(refusal).toMatchObject({
      dataDir,
      endpoint: first.endpoint,
      message: `the data folder ${dataDir} is in use by the DynamoDB at ${first.endpoint}: stop it or use another data folder`,
    });
    expect(await readFile(join(dataDir, 'endpoint'), 'utf8')).toBe(`${first.endpoint}\n`);
  });
});

describe('the local DynamoDB and web pages', () => {
  const preflight = {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://attacker.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,x-amz-target',
    },
  };

  /** The `Access-Control-*` headers of a response. */
  function corsHeaders(response: Response): string[] {
    return [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
  }

  test('dynalite alone answers a preflight from any origin permissively (the finding)', async () => {
    const server = dynalite({});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, preflight);

    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('a preflight from another origin gets 403 and no Access-Control-* header', async () => {
    const db = await startDynamoDb({ dataDir: ':memory:' });
    cleanups.push(() => db.close());

    const response = await fetch(db.endpoint, preflight);

    expect(response.status).toBe(403);
    expect(corsHeaders(response)).toStrictEqual([]);
  });

  test('a request with an Origin header is refused before it reaches the store; the SDK still works', async () => {
    const db = await startTestStore({ tables: createTestTables });
    cleanups.push(() => db.close());

    const response = await fetch(db.endpoint, {
      method: 'POST',
      headers: {
        Origin: 'https://attacker.example',
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.Scan',
        Authorization:
          'AWS4-HMAC-SHA256 Credential=a/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        'X-Amz-Date': '20260101T000000Z',
      },
      body: JSON.stringify({ TableName: testTables.plain }),
    });

    expect(response.status).toBe(403);
    expect(corsHeaders(response)).toStrictEqual([]);
    expect(await response.text()).not.toContain('keyDigest');
    const { TableNames } = await db.client.send(new ListTablesCommand({}));
    expect(TableNames?.sort()).toStrictEqual(Object.values(testTables).sort());
  });
});
