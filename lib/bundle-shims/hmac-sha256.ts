/**
 * Bundle stand-in for `fast-sha256` (standardwebhooks' HMAC, in JavaScript): the same HMAC-SHA256 from
 * node:crypto. docs/architecture.md "Bundles".
 */
import { createHmac } from 'node:crypto';

/** HMAC-SHA256 (RFC 2104) of `data` under `key`: 32 bytes. */
export function hmac(key: Uint8Array, data: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha256', key).update(data).digest());
}
