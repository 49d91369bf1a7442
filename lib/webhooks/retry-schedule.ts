/**
 * The delays between a webhook delivery's attempts (docs/contract.md "History and events": retried with
 * exponential backoff for at least 24 hours).
 * @module
 */

/**
 * The default delays in seconds before attempts 2 to 8: the Standard Webhooks / Svix schedule (5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h), about 27.6 hours from the first attempt to the last. Each is within SQS's
 * 12-hour maximum visibility timeout, which carries the delay.
 */
export const defaultRetryDelays: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** SQS's largest visibility timeout, in seconds (ChangeMessageVisibility `VisibilityTimeout`). */
export const maxVisibilityTimeoutSeconds = 43_200;

/** SQS's longest message delay, in seconds (`DelaySeconds`): a delivery moves to the slow lane with the first delay. */
export const maxDelaySeconds = 900;

/**
 * The delays from `WEBHOOK_RETRY_DELAYS` (seconds, comma-separated: `5,300,1800`), or the default when unset
 * or empty; `n` delays mean `n + 1` attempts.
 * @throws Error when an item is not a whole number from 0 to 43200, or the first is over 900: a deployment fault.
 */
export function retryDelaysFrom(value: string | undefined): readonly number[] {
  if (value === undefined || value.trim() === '') return defaultRetryDelays;
  return value.split(',').map((item, index) => {
    const text = item.trim();
    const seconds = Number(text);
    const limit = index === 0 ? maxDelaySeconds : maxVisibilityTimeoutSeconds;
    if (!/^[0-9]+$/.test(text) || seconds > limit) {
      throw new Error(
        `WEBHOOK_RETRY_DELAYS must be whole seconds from 0 to ${maxVisibilityTimeoutSeconds} (the first to ${maxDelaySeconds}), comma-separated, not ${JSON.stringify(value)}`,
      );
    }
    return seconds;
  });
}
