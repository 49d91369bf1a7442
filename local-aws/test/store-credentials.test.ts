/**
 * The embedded DynamoDB accepts only requests signed with its store's own credentials (README.md "The embedded DynamoDB";
 * common/store-credentials.ts): kept 0600 in the data folder from the first start on, fresh for a store in
 * memory; an unsigned request, one signed with other credentials and one whose signature does not match are
 * refused in DynamoDB's error format and change nothing; and a body is read before its signature is checked only
 * within a bound (common/unverified-bodies.ts; README.md "Request bodies before credentials").
 */
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { credentialsFile, newStoreCredentials, requireSignature } from '../common/store-credentials.ts';
import { unverifiedBodySlots } from '../common/unverified-bodies.ts';
import { startDynamoDb } from '../dynamodb/dynamodb.ts';
import { bytesReadBy, holdUpload, upload } from '../testing/raw-upload.ts';
import { temporaryDir } from '../testing/temporary-dirs.ts';
import { dynamoDbClient, startTestStore, type TestStore } from '../testing/test-store.ts';
import { createTestTables, testTables } from './support/fixture-tables.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

const cleanups: (() => Promise<unknown>)[] = [];
cleanUpAfterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

describe('the store refuses requests not signed with its credentials', () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await startTestStore({ tables: createTestTables });
    cleanups.push(() => db.close());
  });
  const item = {
    TableName: testTables.plain,
    Item: { keyDigest: { S: 'planted-digest' }, name: { S: 'planted' } },
  };
  const stored = async () =>
    (
      await db.client.send(
        new GetItemCommand({ TableName: item.TableName, Key: { keyDigest: item.Item.keyDigest } }),
      )
    ).Item;

  test('an unsigned request: 400 MissingAuthenticationTokenException, nothing written', async () => {
    const response = await fetch(db.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.PutItem' },
      body: JSON.stringify(item),
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toStrictEqual({
      __type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
      message: 'Request is missing Authentication Token',
    });
    expect(await stored()).toBeUndefined();
  });

  test('a request signed with other credentials: 400 UnrecognizedClientException, nothing written', async () => {
    const other = dynamoDbClient(db.endpoint, newStoreCredentials());
    cleanups.push(async () => other.destroy());

    await expect(other.send(new PutItemCommand(item))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
      $metadata: { httpStatusCode: 400 },
    });
    expect(await stored()).toBeUndefined();
  });

  test("the store's key id with another secret: 400 InvalidSignatureException, nothing written", async () => {
    const guessed = { accessKeyId: db.credentials.accessKeyId, secretAccessKey: 'guessed' };
    const other = dynamoDbClient(db.endpoint, guessed);
    cleanups.push(async () => other.destroy());

    await expect(other.send(new PutItemCommand(item))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(await stored()).toBeUndefined();
  });

  test('a signed request whose body was changed after signing: 400 InvalidSignatureException', async () => {
    const tampering = dynamoDbClient(db.endpoint, db.credentials);
    cleanups.push(async () => tampering.destroy());
    tampering.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body: string };
        request.body = request.body.replace('"planted"', '"changed"');
        return next(args);
      },
      { step: 'deserialize', priority: 'low', name: 'tamperAfterSigning' },
    );

    await expect(tampering.send(new PutItemCommand(item))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
    });
    expect(await stored()).toBeUndefined();
  });

  test('its own credentials: the write lands', async () => {
    await db.client.send(new PutItemCommand(item));

    expect(await stored()).toStrictEqual(item.Item);
  });
});

describe('the credentials', () => {
  test('a data folder gets its own on the first start (0600) and keeps them; a store in memory gets fresh ones', async () => {
    const dataDir = join(await temporaryDir('store-credentials-'), 'data');
    const first = await startDynamoDb({ dataDir });
    await first.close();
    const again = await startDynamoDb({ dataDir });
    cleanups.push(() => again.close());
    const inMemory = [
      await startDynamoDb({ dataDir: ':memory:' }),
      await startDynamoDb({ dataDir: ':memory:' }),
    ];
    cleanups.push(...inMemory.map((store) => () => store.close()));

    expect(((await stat(credentialsFile(dataDir))).mode & 0o777).toString(8)).toBe('600');
    expect(again.credentials).toStrictEqual(first.credentials);
    expect(first.credentials.accessKeyId).toMatch(/^LOCAL[0-9A-F]{15}$/);
    expect(first.credentials.secretAccessKey).toMatch(/^[\w-]{40}$/);
    expect(new Set([first, ...inMemory].map((store) => store.credentials.secretAccessKey)).size).toBe(3);
  });
});

describe('bodies before the signature (README.md "Request bodies before credentials")', () => {
  /** A server answering 200 with the length of each body that passes the check, and its count of bytes read. */
  async function guardedServer() {
    const credentials = newStoreCredentials();
    const server = createServer((request, response) => {
      let length = 0;
      request.on('data', (chunk: Buffer) => {
        length += chunk.length;
      });
      request.on('end', () => response.end(String(length)));
    });
    requireSignature(server, credentials);
    const bytesRead = bytesReadBy(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    return { credentials, port: (server.address() as AddressInfo).port, bytesRead };
  }
  const amzDate = () =>
    new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');

  test('30 unsigned 15 MB bodies are refused from their headers: 400 each, their bodies unread', async () => {
    const { port, bytesRead } = await guardedServer();
    const bodyBytes = 15 * 1024 * 1024;
    const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${bodyBytes}\r\n`;

    const outcomes = await Promise.all(Array.from({ length: 30 }, () => upload(port, head, bodyBytes)));

    for (const outcome of outcomes) {
      expect([outcome.status, JSON.parse(outcome.body).__type]).toEqual([
        400,
        'com.amazon.coral.service#MissingAuthenticationTokenException',
      ]);
    }
    expect(bytesRead()).toBeLessThan(30 * 1024 * 1024);
  }, 60_000);

  test(`at most ${unverifiedBodySlots} bodies are read at once before their signature is checked; a slot freed serves a signed request`, async () => {
    const { credentials, port, bytesRead } = await guardedServer();
    // The store's access key id with a made-up signature: only the body's signature check can refuse it.
    const head =
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Date: ${amzDate()}\r\nContent-Length: ${2 * 1024 * 1024}\r\n` +
      `Authorization: AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/20260101/us-east-1/dynamodb/aws4_request, ` +
      `SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}\r\n`;
    const senders = unverifiedBodySlots + 8;
    const megabyte = 1024 * 1024;

    // Each sends half its declared body and waits: the slots' readers hold their half megabyte by megabyte.
    const held = await Promise.all(
      Array.from({ length: senders }, () => holdUpload(port, head, megabyte, 3_000)),
    );
    await vi.waitFor(() => expect(bytesRead()).toBeGreaterThanOrEqual(unverifiedBodySlots * megabyte), {
      timeout: 20_000,
    });

    // The senders past the bound are not read beyond what the socket takes before the server pauses it (a
    // second more for a server without the bound to read them: the wait cannot fail a bounded one).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(bytesRead()).toBeLessThan(unverifiedBodySlots * megabyte + 8 * (megabyte / 2));
    for (const socket of held) socket.destroy();

    const body = JSON.stringify({ TableName: 'any' });
    const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 'dynamodb', sha256: Sha256 });
    const url = `http://127.0.0.1:${port}/`;
    const signed = await signer.sign({
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port,
      path: '/',
      headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/x-amz-json-1.0' },
      body,
    });
    const response = await fetch(url, { method: 'POST', headers: signed.headers, body });
    expect([response.status, await response.text()]).toEqual([200, String(Buffer.byteLength(body))]);
  }, 60_000);
});
