/**
 * The authorizer's decision (docs/service-spec.md §5; docs/contract.md "Authentication"): from an `Authorization` header value to
 * the caller's principal, or a refusal.
 */
import { apiKeyDigest } from './api-key.ts';
import type { KeyStore } from './key-store.ts';

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

/** Who the caller is once allowed: the key's name, never the key or its digest. */
export interface Principal {
  keyName: string;
}

/**
 * Decides a request: allowed when the header carries a Bearer key whose SHA-256 digest is in the keys table
 * (one GetItem), not revoked, and not expired at `now`.
 * @returns the principal, or undefined for a refusal (missing header, other scheme, empty token, unknown,
 *   revoked or expired key).
 * @throws the key store's errors (DynamoDB unreachable): the authorizer fails, it does not refuse.
 */
export async function authorize(
  header: string | undefined,
  keys: KeyStore,
  now: Date,
): Promise<Principal | undefined> {
  const token = bearerToken(header);
  if (token === undefined) return undefined;
  const record = await keys.get(apiKeyDigest(token));
  if (!record || record.revokedAt !== undefined) return undefined;
  // `!(expiry > now)`: an expiry that does not parse (NaN) refuses, rather than never expiring.
  if (record.expiresAt !== undefined && !(Date.parse(record.expiresAt) > now.getTime())) return undefined;
  return { keyName: record.name };
}
