/** The local usage plan: a token bucket per key (behaviour.md S10). */
import type { ThrottleModel as Throttle } from '../template/api-model.ts';

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in milliseconds. */
  at: number;
  throttle: Throttle;
}

/** A usage plan: {@link UsagePlan.take} decides each request of a key. */
export interface UsagePlan {
  /**
   * Takes a token from the bucket of `usageIdentifier` at `now` (milliseconds), the bucket sized by `throttle`
   * (a changed throttle resizes it).
   * @returns false when the key is over its rate: the request is to be throttled.
   */
  take(usageIdentifier: string, throttle: Throttle, now?: number): boolean;
  /**
   * Whole seconds from `now` (milliseconds) until the bucket of `usageIdentifier` holds a token again, at least
   * 1: the `Retry-After` of a throttled request (behaviour.md S10).
   */
  retryAfterSeconds(usageIdentifier: string, now?: number): number;
}

/** Brings `bucket` up to `now`: the tokens refilled at its rate since it was last updated, at most its burst. */
function refill(bucket: Bucket, now: number): void {
  const elapsedSeconds = Math.max(0, now - bucket.at) / 1000;
  bucket.tokens = Math.min(
    bucket.throttle.burstLimit,
    bucket.tokens + elapsedSeconds * bucket.throttle.rateLimit,
  );
  bucket.at = now;
}

/** A new usage plan with empty state (every bucket starts full). */
export function usagePlan(): UsagePlan {
  const buckets = new Map<string, Bucket>();
  return {
    take(usageIdentifier, throttle, now = Date.now()) {
      let bucket = buckets.get(usageIdentifier);
      if (
        !bucket ||
        bucket.throttle.rateLimit !== throttle.rateLimit ||
        bucket.throttle.burstLimit !== throttle.burstLimit
      ) {
        bucket = { tokens: throttle.burstLimit, at: now, throttle };
        buckets.set(usageIdentifier, bucket);
      }
      refill(bucket, now);
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
    retryAfterSeconds(usageIdentifier, now = Date.now()) {
      const bucket = buckets.get(usageIdentifier);
      if (!bucket) return 1;
      refill(bucket, now);
      return Math.max(1, Math.ceil((1 - bucket.tokens) / bucket.throttle.rateLimit));
    },
  };
}
