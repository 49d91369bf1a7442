/**
 * The one retry helper of the service's hand-written retried steps, over p-retry: attempts and pauses are data
 * at the call site, every pause jittered (docs/implementation.md "DynamoDB failures").
 */
import pRetry from 'p-retry';

/** How often and how long apart a step is tried. */
export interface RetryPolicy {
  /** Attempts in all, the first included (at least 1). */
  attempts: number;
  /** The pause before the second attempt, in milliseconds; each later pause doubles it, up to `maxPauseMs`. */
  minPauseMs: number;
  /** The longest pause, in milliseconds. */
  maxPauseMs: number;
}

/** Thrown by a step to be tried again (after a pause) while attempts remain: a conflict, say. */
export class TryAgain extends Error {
  constructor(message = 'try again') {
    super(message);
    this.name = 'TryAgain';
  }
}

/**
 * Runs `step` (given its attempt number, from 1) until it returns or throws anything but {@link TryAgain}, at
 * most `policy.attempts` times, pausing between attempts with exponential backoff and jitter (p-retry's
 * `randomize`: each pause its exponential value times a random factor from 1 to 2, at most `maxPauseMs`).
 * @throws the error of `exhausted()` once the last attempt threw {@link TryAgain}; any other error of `step`
 */
export async function retried<T>(
  policy: RetryPolicy,
  step: (attempt: number) => Promise<T>,
  exhausted: () => Error,
): Promise<T> {
  try {
    return await pRetry(step, {
      retries: policy.attempts - 1,
      minTimeout: policy.minPauseMs,
      maxTimeout: policy.maxPauseMs,
      randomize: true,
      shouldRetry: ({ error }) => error instanceof TryAgain,
    });
  } catch (error) {
    if (error instanceof TryAgain) throw exhausted();
    throw error;
  }
}
