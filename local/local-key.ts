/**
 * The local API key of a data folder: docs/local-api.md "First start and stopping". Derived from the store's
 * own secret (kept 0600 in the private data folder), so `npm start` can show it on every start while the key
 * itself is stored nowhere, only its digest (docs/contract.md "Authentication and authorization").
 */
import { createHmac } from 'node:crypto';
import type { StoreCredentials } from 'local-aws';

/**
 * The key named `local` of the store signed with `credentials`: `psk_` and the 256-bit HMAC-SHA256 of a fixed
 * label under the store's secret, in base64url (the format of lib/auth/api-key.ts `generateApiKey`).
 */
export function localApiKey(credentials: StoreCredentials): string {
  return `psk_${createHmac('sha256', credentials.secretAccessKey).update('pet-store local API key').digest('base64url')}`;
}
