/** API key format and SHA-256 digest: docs/contract.md "Authentication and authorization". */
import { createHash, randomBytes } from 'node:crypto';

const keyPrefix = 'psk_';

/** Hex digits of the digest that make a key's id. */
const keyIdLength = 12;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * A new key: `psk_` (a prefix secret scanners match) and 32 random bytes in base64url, a valid RFC 6750
 * bearer token. Shown once to the operator, never stored or logged: only its digest is.
 */
export function generateApiKey(): string {
  return keyPrefix + randomBytes(32).toString('base64url');
}

/** The SHA-256 digest of `apiKey` as 64 lowercase hex digits: the keys table's partition key. */
export function apiKeyDigest(apiKey: string): string {
  return sha256Hex(apiKey);
}

/** A key's id: the first 12 hex digits of its digest, shown by `keys list` and taken by `revoke` and `rotate`. */
export function keyIdOf(keyDigest: string): string {
  return keyDigest.slice(0, keyIdLength);
}

/** True when `text` has the shape of a key id (12 lowercase hex digits). */
export function isKeyId(text: string): boolean {
  return new RegExp(`^[0-9a-f]{${keyIdLength}}$`).test(text);
}

/**
 * The key's usage identifier: the value of its API Gateway API key, which the authorizer returns as
 * `usageIdentifierKey` so the usage plan throttles each key on its own (docs/contract.md "Authentication and
 * authorization"). 64 hex digits (API Gateway takes 20 to 128 characters), derived from the digest with a
 * label so that it is not the digest itself.
 */
export function usageIdentifierOf(keyDigest: string): string {
  return sha256Hex(`usage-identifier:${keyDigest}`);
}
