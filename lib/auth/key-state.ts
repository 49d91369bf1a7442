/** A stored API key's state at a time: docs/contract.md "Authentication and authorization". */
import type { ApiKeyRecord } from './key-store.ts';

/** A key's state at a given time: only an `active` key is accepted. */
export type KeyState = 'active' | 'revoked' | 'expired';

/**
 * The state of `record` at `now`: `revoked` once revoked, else `expired` from its expiry on (an expiry that does
 * not parse counts as past, rather than never expiring), else `active`.
 */
export function keyStateAt(record: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): KeyState {
  if (record.revokedAt !== undefined) return 'revoked';
  if (record.expiresAt !== undefined && !(Date.parse(record.expiresAt) > now.getTime())) return 'expired';
  return 'active';
}
