/**
 * The local API's usage plan: per-key throttling as API Gateway applies a usage plan's throttle to each API
 * key (docs/contract.md "Authentication and authorization"), a token bucket per usage identifier. A bucket
 * holds at most `burstLimit` tokens, refills at `rateLimit` tokens per second and starts full; each request
 * takes one token, and a request that finds none is refused (API Gateway's THROTTLED, 429). API Gateway
 * documents its throttling as this token-bucket algorithm (API Gateway developer guide, "Throttle requests to
 * your REST APIs").
 */
import type { Throttle } from '#lib/auth/authorize.ts';

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
      const elapsedSeconds = Math.max(0, now - bucket.at) / 1000;
      bucket.tokens = Math.min(throttle.burstLimit, bucket.tokens + elapsedSeconds * throttle.rateLimit);
      bucket.at = now;
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
  };
}
