/**
 * A key's id, usage identifier and state at a time, and when its use is recorded: lib/auth/api-key.ts,
 * lib/auth/key-state.ts, lib/auth/authorize.ts (docs/contract.md "Authentication and authorization" and
 * "Operator tooling").
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { isKeyId, keyIdOf, usageIdentifierOf } from '#lib/auth/api-key.ts';
import { authorize, lastUseWindowStart, needsUseRecorded } from '#lib/auth/authorize.ts';
import { keyStateAt } from '#lib/auth/key-state.ts';
import type { ApiKeyRecord, KeyStore } from '#lib/auth/key-store.ts';

const digest = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

describe('key ids and usage identifiers', () => {
  test("a key's id is the first 12 hex digits of its digest", () => {
    expect(keyIdOf(digest)).toBe('ba7816bf8f01');
  });

  test.each(['ba7816bf8f01', '000000000000', 'ffffffffffff'])('%s is a key id', (text) => {
    expect(isKeyId(text)).toBe(true);
  });

  test.each([
    'ba7816bf8f0',
    'ba7816bf8f01c',
    'BA7816BF8F01',
    'ba7816bf8f0g',
    ' ba7816bf8f01',
    'ba7816bf8f01\n',
    '',
  ])('%j is not a key id', (text) => {
    expect(isKeyId(text)).toBe(false);
  });

  test('the usage identifier is the SHA-256 hex of the labelled digest, not the digest', () => {
    const expected = createHash('sha256').update(`usage-identifier:${digest}`).digest('hex');
    expect(usageIdentifierOf(digest)).toBe(expected);
    expect(usageIdentifierOf(digest)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('keyStateAt', () => {
  const now = new Date('2026-12-08T12:00:00.000Z');

  test.each([
    [{}, 'active'],
    [{ expiresAt: '2026-12-08T12:00:00.001Z' }, 'active'],
    [{ expiresAt: '2026-12-08T12:00:00.000Z' }, 'expired'],
    [{ expiresAt: '2026-12-08T11:59:59.999Z' }, 'expired'],
    [{ expiresAt: 'never' }, 'expired'],
    [{ revokedAt: '2026-12-09T00:00:00.000Z' }, 'revoked'],
    [{ revokedAt: '2026-12-01T00:00:00.000Z', expiresAt: '2026-12-02T00:00:00.000Z' }, 'revoked'],
  ])('%j is %s', (record, state) => {
    expect(keyStateAt(record, now)).toBe(state);
  });
});

describe('the last use is recorded once per authorizer cache period (300 s)', () => {
  const now = new Date('2026-12-08T12:00:00.000Z');

  test('the period starts 300 s before now', () => {
    expect(lastUseWindowStart(now)).toStrictEqual(new Date('2026-12-08T11:55:00.000Z'));
  });

  const record = { keyDigest: digest, name: 'k', createdAt: '2026-01-01T00:00:00.000Z' };
  test.each([
    [undefined, true],
    ['2026-12-08T11:54:59.999Z', true],
    ['2026-12-08T11:55:00.000Z', false],
    ['2026-12-08T11:59:00.000Z', false],
  ])('last used at %s: recorded again is %s', (lastUsedAt, needed) => {
    const used = lastUsedAt === undefined ? record : { ...record, lastUsedAt };
    expect(needsUseRecorded(used, now)).toBe(needed);
  });
});

describe("authorize: the principal's own throttle", () => {
  const now = new Date('2026-12-08T12:00:00.000Z');
  /** A key store holding `record` under the digest of the key `abc` only. */
  const storeOf = (record: Partial<ApiKeyRecord>) =>
    ({
      get: async (keyDigest: string) =>
        keyDigest === digest ? { keyDigest, name: 'k', createdAt: '', ...record } : undefined,
    }) as KeyStore;

  test.each([
    [
      { rateLimit: 5, burstLimit: 10 },
      { rateLimit: 5, burstLimit: 10 },
    ],
    [{ rateLimit: 5 }, undefined],
    [{ burstLimit: 10 }, undefined],
    [{}, undefined],
  ])('a record with %j has the throttle %j', async (limits, throttle) => {
    const decision = await authorize('Bearer abc', storeOf(limits), now);
    expect(decision?.principal.throttle).toStrictEqual(throttle);
    expect(decision?.principal.keyId).toBe('ba7816bf8f01');
  });
});
