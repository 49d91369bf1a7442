/**
 * The keys table's operations (lib/auth/key-store.ts) on a real DynamoDB API (in-memory dynalite), the items as
 * each leaves them: docs/contract.md "Authentication and authorization" and "Operator tooling".
 */
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type ApiKeyRecord, type KeyStore, keyStore } from '#lib/auth/key-store.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let keys: KeyStore;
beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
  keys = keyStore(toDocumentClient(db.client), testTableNames.apiKeys);
});
afterAll(() => db?.close());

/** A digest of 64 hex digits ending in `n`. */
const digestOf = (n: number) => n.toString(16).padStart(64, '0');
let next = 0;
let digest: string;
beforeEach(() => {
  next += 1;
  digest = digestOf(next);
});

const record = (extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  keyDigest: digest,
  name: 'ops',
  createdAt: '2026-12-01T00:00:00.000Z',
  ...extra,
});

/** The raw item stored under the test's digest. */
const stored = async () =>
  (await scanTable(db.client, testTableNames.apiKeys)).find((item) => item.keyDigest?.S === digest);

describe('keyStore', () => {
  test('put stores the record as given and get reads it back, its throttle as numbers', async () => {
    const key = record({
      scopes: ['inventory:read'],
      rateLimit: 5,
      burstLimit: 10,
      firstKeyId: 'ba7816bf8f01',
    });
    await keys.put(key);
    expect(await keys.get(digest)).toStrictEqual(key);
    expect(await keys.get(digestOf(999_999))).toBeUndefined();
  });

  test('a record stored without a throttle is read without one', async () => {
    await keys.put(record());
    expect(await keys.get(digest)).toStrictEqual(record());
  });

  test('put never replaces a stored digest', async () => {
    await keys.put(record());
    await expect(keys.put(record({ name: 'other' }))).rejects.toThrow(
      expect.objectContaining({ name: 'ConditionalCheckFailedException' }),
    );
    expect((await keys.get(digest))?.name).toBe('ops');
  });

  test('list returns every record', async () => {
    await keys.put(record({ rateLimit: 1, burstLimit: 2 }));
    const listed = await keys.list();
    expect(listed).toContainEqual(record({ rateLimit: 1, burstLimit: 2 }));
    expect(listed.length).toBe((await scanTable(db.client, testTableNames.apiKeys)).length);
  });

  test('revoke records the first revocation only; an unknown digest fails', async () => {
    await keys.put(record());
    await keys.revoke(digest, new Date('2026-12-02T00:00:00.000Z'));
    await keys.revoke(digest, new Date('2026-12-03T00:00:00.000Z'));
    expect((await keys.get(digest))?.revokedAt).toBe('2026-12-02T00:00:00.000Z');
    await expect(keys.revoke(digestOf(999_998), new Date())).rejects.toThrow(
      expect.objectContaining({ name: 'ConditionalCheckFailedException' }),
    );
    expect(await keys.get(digestOf(999_998))).toBeUndefined();
  });

  test('expireBy sets an expiry, moves it earlier only, and writes nothing for an unknown digest', async () => {
    await keys.put(record());
    await keys.expireBy(digest, new Date('2026-12-10T00:00:00.000Z'));
    expect((await keys.get(digest))?.expiresAt).toBe('2026-12-10T00:00:00.000Z');
    await keys.expireBy(digest, new Date('2026-12-11T00:00:00.000Z'));
    expect((await keys.get(digest))?.expiresAt).toBe('2026-12-10T00:00:00.000Z');
    await keys.expireBy(digest, new Date('2026-12-10T00:00:00.000Z'));
    await keys.expireBy(digest, new Date('2026-12-09T00:00:00.000Z'));
    expect((await keys.get(digest))?.expiresAt).toBe('2026-12-09T00:00:00.000Z');
    await keys.expireBy(digestOf(999_997), new Date());
    expect(await keys.get(digestOf(999_997))).toBeUndefined();
  });

  test('recordUse writes when no use after notBefore is recorded, and says whether it wrote', async () => {
    await keys.put(record());
    const at = new Date('2026-12-08T12:00:00.000Z');
    const notBefore = new Date('2026-12-08T11:55:00.000Z');
    expect(await keys.recordUse(digest, at, notBefore)).toBe(true);
    expect((await stored())?.lastUsedAt).toStrictEqual({ S: '2026-12-08T12:00:00.000Z' });
    expect(await keys.recordUse(digest, new Date('2026-12-08T12:04:00.000Z'), notBefore)).toBe(false);
    expect(await keys.recordUse(digest, new Date('2026-12-08T12:04:00.000Z'), at)).toBe(false);
    expect((await stored())?.lastUsedAt).toStrictEqual({ S: '2026-12-08T12:00:00.000Z' });
    const later = new Date('2026-12-08T12:05:00.001Z');
    expect(await keys.recordUse(digest, later, new Date('2026-12-08T12:00:00.001Z'))).toBe(true);
    expect((await stored())?.lastUsedAt).toStrictEqual({ S: '2026-12-08T12:05:00.001Z' });
    expect(await keys.recordUse(digestOf(999_996), at, notBefore)).toBe(false);
    expect(await keys.get(digestOf(999_996))).toBeUndefined();
  });
});
