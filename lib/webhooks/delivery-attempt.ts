/**
 * One delivery attempt of a webhook: a signed POST to the subscriber (docs/contract.md "History and events":
 * a 2xx within 10 s is delivered; no redirect is followed).
 * @module
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { DeliveryMessage } from './delivery-message.ts';
import { webhookPayload } from './delivery-message.ts';
import { signatureHeaders } from './signing.ts';
import { checkUrlForm, guardedLookup, type LookupFunction, type UrlPolicy } from './url-guard.ts';

/** Milliseconds an attempt may take in total, from connecting to the response's status: then it fails. */
export const deliveryTimeoutMs = 10_000;

/**
 * Milliseconds a first attempt may take in the fast lane: then it is cut, not failed, and the delivery moves to
 * the slow lane for an attempt of the full {@link deliveryTimeoutMs} (docs/architecture.md "Events and webhooks").
 */
export const fastLaneTimeoutMs = 2_000;

/** The `User-Agent` of deliveries. */
export const deliveryUserAgent = 'pet-store-webhooks/1';

/**
 * How an attempt ended: delivered (a 2xx), or failed with the status (when one came) and why; `timedOut` when no
 * status came within the timeout; `retryAfter`, the answer's `Retry-After` header when it had one.
 */
export type AttemptOutcome =
  | { delivered: true; status: number }
  | { delivered: false; status?: number; error: string; timedOut?: true; retryAfter?: string };

/** What an attempt needs besides the message: the endpoint's URL and secret, the policy, the clock. */
export interface AttemptTarget {
  url: string;
  /** The signing secret, or the secrets (the new one first) while a rotated one overlaps. */
  secret: string | readonly string[];
  policy: UrlPolicy;
  /** The attempt's time (the signature's timestamp); now unless given. */
  now?: Date;
  /** Total timeout in milliseconds; {@link deliveryTimeoutMs} unless given. */
  timeoutMs?: number;
  /** The DNS lookup; the guarded dns.lookup of the policy unless given (tests). */
  lookup?: LookupFunction;
}

/**
 * POSTs the message's payload, signed, to the target: the URL is checked by the SSRF guard first and its host
 * is resolved by the guarded lookup, so the connection goes to a checked address. Never throws: every failure
 * (refused URL, DNS, connection, timeout, a non-2xx status, a redirect) is an outcome.
 */
export function attemptDelivery(
  message: Pick<DeliveryMessage, 'eventId' | 'type' | 'timestamp' | 'data'>,
  target: AttemptTarget,
): Promise<AttemptOutcome> {
  let url: URL;
  try {
    url = checkUrlForm(target.url, target.policy);
  } catch (error) {
    return Promise.resolve({ delivered: false, error: (error as Error).message });
  }
  const body = webhookPayload(message);
  let signature: ReturnType<typeof signatureHeaders>;
  try {
    signature = signatureHeaders(target.secret, message.eventId, target.now ?? new Date(), body);
  } catch (error) {
    return Promise.resolve({ delivered: false, error: `cannot sign: ${(error as Error).message}` });
  }
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': deliveryUserAgent,
    ...signature,
  };
  const timeoutMs = target.timeoutMs ?? deliveryTimeoutMs;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
      req.destroy();
    };
    const req = send(url, {
      method: 'POST',
      headers,
      // A fresh connection per attempt: no pooled socket bypasses the guarded lookup.
      agent: false,
      lookup: target.lookup ?? guardedLookup(target.policy),
    });
    const timer = setTimeout(
      () => settle({ delivered: false, timedOut: true, error: `no response within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    req.on('response', (response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      if (status >= 200 && status < 300) settle({ delivered: true, status });
      else if (status >= 300 && status < 400) {
        settle({ delivered: false, status, error: `HTTP ${status}: redirects are not followed` });
      } else {
        const retryAfter = response.headers['retry-after'];
        settle({
          delivered: false,
          status,
          error: `HTTP ${status}`,
          ...(retryAfter !== undefined && { retryAfter }),
        });
      }
    });
    req.on('error', (error) => settle({ delivered: false, error: error.message }));
    req.end(body);
  });
}
