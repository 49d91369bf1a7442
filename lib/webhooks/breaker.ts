/**
 * The breaker of failing subscriptions (docs/contract.md "History and events": a subscriber that has failed every
 * attempt for 5 days is disabled; Svix's rule, https://docs.svix.com/retries "Disabling failing endpoints").
 * @module
 */

/** Seconds of failed attempts only after which a subscription is disabled: 5 days. */
export const defaultDisableAfterSeconds = 5 * 86_400;

/**
 * The breaker's period from `WEBHOOK_DISABLE_AFTER_SECONDS` (whole seconds, at least 1; shortened locally to
 * watch it trip), or the default when unset or empty.
 * @throws Error when it is not a whole number of seconds from 1: a deployment fault.
 */
export function disableAfterSecondsFrom(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return defaultDisableAfterSeconds;
  const text = value.trim();
  if (!/^[1-9][0-9]*$/.test(text)) {
    throw new Error(
      `WEBHOOK_DISABLE_AFTER_SECONDS must be whole seconds from 1, not ${JSON.stringify(value)}`,
    );
  }
  return Number(text);
}
