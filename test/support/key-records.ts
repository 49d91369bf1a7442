/**
 * API key records in tests: stores new ones, asserts one as the key tool stores it (docs/contract.md
 * "Authentication and authorization").
 */
import { expect } from 'vitest';
import { type Scope, scopes } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import type { Throttle } from '#lib/auth/authorize.ts';
import type { KeyStore } from '#lib/auth/key-store.ts';
import { type RawItem, sha256Hex } from './raw-tables.ts';

/**
 * Stores a new key named `name` in `keys` with `keyScopes` (default every scope) and, when given, its own
 * throttle; returns the key.
 */
export async function storeNewKey(
  keys: KeyStore,
  name: string,
  throttle?: Throttle,
  keyScopes: readonly Scope[] = scopes,
): Promise<string> {
  const key = generateApiKey();
  await keys.put({
    keyDigest: apiKeyDigest(key),
    name,
    createdAt: new Date().toISOString(),
    scopes: [...keyScopes],
    ...throttle,
  });
  return key;
}

/**
 * Asserts that `record` stores `key` of a fresh `keys create <name>` as only its SHA-256 digest, with exactly
 * the fields createdAt, expiresAt, keyDigest, name and scopes: every scope, created between `createdAfter`
 * (epoch ms, less 1 s of clock slack) and now, expiring `expiresInDays` later.
 */
export function expectNewKeyRecord(
  record: RawItem | undefined,
  expected: { key: string; name: string; createdAfter: number; expiresInDays: number },
): void {
  expect(Object.keys(record ?? {}).sort()).toStrictEqual([
    'createdAt',
    'expiresAt',
    'keyDigest',
    'name',
    'scopes',
  ]);
  expect(record?.keyDigest).toStrictEqual({ S: sha256Hex(expected.key) });
  expect(record?.name).toStrictEqual({ S: expected.name });
  expect(record?.scopes).toStrictEqual({
    L: [
      { S: 'inventory:read' },
      { S: 'inventory:write' },
      { S: 'orders:read' },
      { S: 'orders:write' },
      { S: 'events:read' },
      { S: 'webhooks:manage' },
    ],
  });
  const createdAt = Date.parse(record?.createdAt?.S ?? '');
  expect(createdAt).toBeGreaterThanOrEqual(expected.createdAfter - 1000);
  expect(createdAt).toBeLessThanOrEqual(Date.now());
  expect(Date.parse(record?.expiresAt?.S ?? '') - createdAt).toBe(expected.expiresInDays * 86_400_000);
}
