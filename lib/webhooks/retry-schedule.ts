/**
 * The delays between a webhook delivery's attempts (docs/contract.md "History and events": retried with
 * exponential backoff for at least 24 hours; scheduled delays carry jitter of ±20%).
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

/** The jitter of a scheduled delay: a share drawn uniformly from [-0.2, +0.2] of it (Svix's rule). */
export const jitterRatio = 0.2;

/**
 * Why `delays` (seconds before attempts 2, 3, ...) cannot be a schedule, or undefined when they can: each a whole
 * number from 0 to {@link maxVisibilityTimeoutSeconds}, the first at most {@link maxDelaySeconds}. The one check
 * of a schedule, for the stack's settings (infra/change-events.ts) and the delivery's environment
 * (lib/webhooks/delivery-settings.ts).
 */
export function retryScheduleProblem(delays: readonly number[]): string | undefined {
  const wrong = delays.find(
    (delay) => !Number.isInteger(delay) || delay < 0 || delay > maxVisibilityTimeoutSeconds,
  );
  if (wrong !== undefined) {
    return `webhook retry delay ${wrong} is not a whole number of seconds from 0 to ${maxVisibilityTimeoutSeconds}`;
  }
  if ((delays[0] ?? 0) > maxDelaySeconds) {
    return `the first webhook retry delay ${delays[0]} is over ${maxDelaySeconds} s, SQS's longest message delay`;
  }
  return undefined;
}

/**
 * The scheduled delay `seconds` with its jitter: `seconds × (0.8 + 0.4 × sample)`, uniform in [0.8, 1.2] times
 * `seconds` for a `sample` uniform in [0, 1) (`Math.random()`), rounded to whole seconds (SQS's unit).
 * @example jitteredDelay(300, 0.5) // 300
 */
export function jitteredDelay(seconds: number, sample: number): number {
  return Math.round(seconds * (1 - jitterRatio + 2 * jitterRatio * sample));
}
