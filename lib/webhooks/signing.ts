/**
 * Signing of webhook requests (Standard Webhooks 1.0, with the `standardwebhooks` package): docs/contract.md
 * "History and events".
 * @module
 */
import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one delivery attempt. */
export interface SignatureHeaders {
  /** The event's id, the same on every attempt (the receivers' deduplication key). */
  'webhook-id': string;
  /** The attempt's time, integer seconds since the epoch. */
  'webhook-timestamp': string;
  /**
   * `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under each secret, space-separated (Standard Webhooks:
   * `v1,<new> v1,<old>` while a rotated secret overlaps).
   */
  'webhook-signature': string;
}

/**
 * The headers that sign `body` (the exact bytes sent) for event `eventId` at `at` with `secrets` (`whsec_...`):
 * one signature per secret, in their order (docs/contract.md "History and events": rotateWebhookSecret).
 * @throws Error when a secret is not base64.
 */
export function signatureHeaders(
  secrets: string | readonly string[],
  eventId: string,
  at: Date,
  body: string,
): SignatureHeaders {
  const seconds = Math.floor(at.getTime() / 1000);
  const signing = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signing
      .map((secret) => new Webhook(secret).sign(eventId, new Date(seconds * 1000), body))
      .join(' '),
  };
}
