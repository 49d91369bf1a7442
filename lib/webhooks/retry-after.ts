/**
 * A receiver's `Retry-After` (RFC 9110 §10.2.3): how long it asks a webhook's next attempt to wait
 * (docs/contract.md "History and events": retries honour the receiver).
 * @module
 */

/** The longest wait a `Retry-After` can ask for, in seconds: 24 hours (docs/contract.md "History and events"). */
export const maxRetryAfterSeconds = 86_400;

/** The statuses whose `Retry-After` the delivery honours: 429 Too Many Requests and 503 Service Unavailable. */
export const retryAfterStatuses: readonly number[] = [429, 503];

/**
 * The three forms of an HTTP-date (RFC 9110 §5.6.7), which a recipient must all accept: IMF-fixdate
 * (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
 * (`Sun Nov  6 08:49:37 1994`, in UTC). `Date.parse` reads each; the shapes only keep it from reading other text.
 */
const httpDateForms = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * The whole seconds from `now` that the `Retry-After` value `header` asks for (delay-seconds, or an HTTP-date
 * rounded up to the second), at most {@link maxRetryAfterSeconds}; 0 for a date already past.
 * @returns undefined when the header is absent or is neither form (it is then ignored).
 * @example retryAfterSeconds('3', now) // 3
 */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  const text = header?.trim() ?? '';
  if (/^\d+$/.test(text)) return Math.min(Number(text), maxRetryAfterSeconds);
  const form = httpDateForms.findIndex((shape) => shape.test(text));
  if (form < 0) return undefined;
  const at = Date.parse(form === 2 ? `${text} GMT` : text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), maxRetryAfterSeconds);
}
