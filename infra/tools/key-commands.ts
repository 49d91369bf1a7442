/**
 * The key tool's operations on a key store (docs/contract.md "Authentication", "Operator tooling"): create (the key
 * is returned once and only its digest stored), list (names and states, never keys), revoke (by name).
 */
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import type { ApiKeyRecord, KeyStore } from '#lib/auth/key-store.ts';

/** A key's state at a given time. */
export type KeyState = 'active' | 'revoked' | 'expired';

/** One line of `list`: what an operator may see of a key. `id` is the first 12 hex digits of its digest. */
export interface KeySummary {
  name: string;
  id: string;
  createdAt: string;
  expiresAt?: string;
  state: KeyState;
}

function stateAt(record: ApiKeyRecord, now: Date): KeyState {
  if (record.revokedAt !== undefined) return 'revoked';
  if (record.expiresAt !== undefined && !(Date.parse(record.expiresAt) > now.getTime())) return 'expired';
  return 'active';
}

/**
 * Creates a key named `name`, valid until `expiresAt` when given.
 * @returns the key itself: the only time it exists outside the caller's hands.
 * @throws Error when `name` is empty.
 */
export async function createKey(keys: KeyStore, name: string, now: Date, expiresAt?: Date): Promise<string> {
  if (name.trim() === '') throw new Error('a key needs a name');
  const apiKey = generateApiKey();
  await keys.put({
    keyDigest: apiKeyDigest(apiKey),
    name,
    createdAt: now.toISOString(),
    ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
  });
  return apiKey;
}

/** Every key's summary, oldest first. */
export async function listKeys(keys: KeyStore, now: Date): Promise<KeySummary[]> {
  const records = await keys.list();
  return records
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((record) => ({
      name: record.name,
      id: record.keyDigest.slice(0, 12),
      createdAt: record.createdAt,
      ...(record.expiresAt ? { expiresAt: record.expiresAt } : {}),
      state: stateAt(record, now),
    }));
}

/**
 * Revokes every active key named `name` at `now`.
 * @returns how many keys it revoked (0 when none active has that name).
 */
export async function revokeKeys(keys: KeyStore, name: string, now: Date): Promise<number> {
  const active = (await keys.list()).filter(
    (record) => record.name === name && stateAt(record, now) === 'active',
  );
  for (const record of active) await keys.revoke(record.keyDigest, now);
  return active.length;
}
