/** The authorizer's decision, principal or refusal: docs/contract.md "Authentication and authorization". */
import { authorizerCacheTtlSeconds, type Scope, scopes } from '../api.ts';
import { apiKeyDigest, keyIdOf, usageIdentifierOf } from './api-key.ts';
import { keyStateAt } from './key-state.ts';
import type { ApiKeyRecord, KeyStore } from './key-store.ts';

/**
 * A Bearer `Authorization` header value, `Bearer <token>`: scheme case-insensitive (RFC 9110 §11.1), one or
 * more spaces, an RFC 6750 b64token (group 1). Anything else (other scheme, empty token, extra words) does not
 * match. A pattern without flags, so that API Gateway uses it as the TOKEN authorizer's validation expression
 * (applied to the whole value) and this module as the same grammar.
 */
export const bearerHeaderPattern = '^[Bb][Ee][Aa][Rr][Ee][Rr] +([A-Za-z0-9._~+/-]+=*) *$';

const bearer = new RegExp(bearerHeaderPattern);

/** The token of a Bearer `Authorization` header value, or undefined when the value is not one. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : bearer.exec(header)?.[1];
}

/** A key's own throttle: steady requests per second and burst (token bucket size). */
export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/** Who the caller is once allowed: never the key or its digest. */
export interface Principal {
  keyName: string;
  /** The key's id (lib/auth/api-key.ts `keyIdOf`), as `keys list` shows it. */
  keyId: string;
  /**
   * The id of the first key of its rotation chain: the key's own id unless `keys rotate` made it. It scopes the
   * key's Idempotency-Keys, so a rotated key shares its predecessor's (docs/contract.md "Store orders").
   */
  firstKeyId: string;
  /** The scopes the key holds; every scope for a key stored before scopes existed. */
  scopes: readonly Scope[];
  /** The value of the key's API Gateway API key (lib/auth/api-key.ts `usageIdentifierOf`). */
  usageIdentifier: string;
  /** The key's own throttle, when it has one; else the environment's default applies. */
  throttle?: Throttle;
}

/** A decision: the principal and the stored record it came from, or undefined for a refusal. */
export interface Decision {
  principal: Principal;
  record: ApiKeyRecord;
}

function principalOf(record: ApiKeyRecord): Principal {
  return {
    keyName: record.name,
    keyId: keyIdOf(record.keyDigest),
    firstKeyId: record.firstKeyId ?? keyIdOf(record.keyDigest),
    scopes: record.scopes ?? scopes,
    usageIdentifier: usageIdentifierOf(record.keyDigest),
    ...(record.rateLimit !== undefined && record.burstLimit !== undefined
      ? { throttle: { rateLimit: record.rateLimit, burstLimit: record.burstLimit } }
      : {}),
  };
}

/**
 * Decides a request: allowed when the header carries a Bearer key whose SHA-256 digest is in the keys table
 * (one GetItem), not revoked, and not expired at `now`.
 * @returns the decision, or undefined for a refusal (missing header, other scheme, empty token, unknown,
 *   revoked or expired key).
 * @throws the key store's errors (DynamoDB unreachable): the authorizer fails, it does not refuse.
 */
export async function authorize(
  header: string | undefined,
  keys: KeyStore,
  now: Date,
): Promise<Decision | undefined> {
  const token = bearerToken(header);
  if (token === undefined) return undefined;
  const record = await keys.get(apiKeyDigest(token));
  if (!record || keyStateAt(record, now) !== 'active') return undefined;
  return { principal: principalOf(record), record };
}

/**
 * The start of the period in which a use is already recorded: one authorizer cache period before `now`. An
 * allowed key's result is cached for that long, so the authorizer runs about once per period per key and
 * writes the last-used date at most once per period (docs/contract.md "Operator tooling").
 */
export function lastUseWindowStart(now: Date): Date {
  return new Date(now.getTime() - authorizerCacheTtlSeconds * 1000);
}

/** True when `record` has no use recorded within the current period (see {@link lastUseWindowStart}). */
export function needsUseRecorded(record: ApiKeyRecord, now: Date): boolean {
  return record.lastUsedAt === undefined || record.lastUsedAt < lastUseWindowStart(now).toISOString();
}
