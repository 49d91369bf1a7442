/**
 * Signing of webhook requests (Standard Webhooks 1.0, with the `standardwebhooks` package): docs/contract.md
 * "History and events".
 * @module
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** Random bytes in a signing secret (Standard Webhooks: between 24 and 64). */
const secretBytes = 24;

/** A new signing secret: `whsec_` + base64 of 24 random bytes, the form Standard Webhooks libraries read. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(secretBytes).toString('base64')}`;
}

/** The Standard Webhooks headers of one delivery attempt. */
export interface SignatureHeaders {
  /** The event's id, the same on every attempt (the receivers' deduplication key). */
  'webhook-id': string;
  /** The attempt's time, integer seconds since the epoch. */
  'webhook-timestamp': string;
  /** `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret. */
  'webhook-signature': string;
}

/**
 * The headers that sign `body` (the exact bytes sent) for event `eventId` at `at` with `secret` (`whsec_...`).
 * @throws Error when the secret is not base64.
 */
export function signatureHeaders(secret: string, eventId: string, at: Date, body: string): SignatureHeaders {
  const seconds = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(eventId, new Date(seconds * 1000), body),
  };
}
