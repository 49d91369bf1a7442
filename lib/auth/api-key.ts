/**
 * API key format and hashing (docs/service-spec.md §5; docs/contract.md "Authentication").
 *
 * A key is `psk_` followed by 32 random bytes in base64url (256 bits of entropy, 47 characters in all): a
 * valid RFC 6750 bearer token, and a prefix that secret scanners can match. Only its SHA-256 digest
 * (64 lowercase hex digits) is ever stored.
 */
import { createHash, randomBytes } from 'node:crypto';

const keyPrefix = 'psk_';

/** A new random API key (see the module docstring). Shown once to the operator, never stored or logged. */
export function generateApiKey(): string {
  return keyPrefix + randomBytes(32).toString('base64url');
}

/** The SHA-256 digest of `apiKey` as 64 lowercase hex digits: the keys table's partition key. */
export function apiKeyDigest(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
