/**
 * The local API's usage plan (apigateway/usage-plan.ts): a token bucket per usage identifier, as API Gateway
 * throttles each API key of a usage plan (behaviour.md S10). Times are
 * given explicitly, so no test waits.
 */
import { describe, expect, test } from 'vitest';
import { usagePlan } from '../apigateway/usage-plan.ts';

const fivePerSecond = { rateLimit: 5, burstLimit: 5 };

/** How many of `count` requests at time `now` the plan lets through for `id`. */
function allowed(
  plan: ReturnType<typeof usagePlan>,
  id: string,
  count: number,
  now: number,
  throttle = fivePerSecond,
) {
  let passed = 0;
  for (let i = 0; i < count; i++) if (plan.take(id, throttle, now)) passed++;
  return passed;
}

describe('usage plan token buckets', () => {
  test('a new key may send its burst at once, then is throttled', () => {
    const plan = usagePlan();
    expect(allowed(plan, 'a', 8, 1_000)).toBe(5);
  });

  test('the bucket refills at the rate: 200 ms at 5/s is one more request', () => {
    const plan = usagePlan();
    allowed(plan, 'a', 5, 1_000);
    expect(allowed(plan, 'a', 3, 1_199)).toBe(0);
    expect(allowed(plan, 'a', 3, 1_200)).toBe(1);
    expect(allowed(plan, 'a', 10, 2_200)).toBe(5);
  });

  test('refills never exceed the burst, however long the key was idle', () => {
    const plan = usagePlan();
    allowed(plan, 'a', 5, 1_000);
    expect(allowed(plan, 'a', 100, 3_600_000)).toBe(5);
  });

  test('each usage identifier has its own bucket: one key over its rate leaves another untouched', () => {
    const plan = usagePlan();
    expect(allowed(plan, 'a', 50, 1_000)).toBe(5);
    expect(allowed(plan, 'b', 5, 1_000)).toBe(5);
  });

  test('a burst above the rate: 10 at once, then 2 per second', () => {
    const plan = usagePlan();
    const throttle = { rateLimit: 2, burstLimit: 10 };
    expect(allowed(plan, 'a', 20, 0, throttle)).toBe(10);
    expect(allowed(plan, 'a', 20, 1_000, throttle)).toBe(2);
  });

  test('a changed throttle (the key rotated to another rate) starts a new full bucket', () => {
    const plan = usagePlan();
    allowed(plan, 'a', 5, 1_000);
    expect(allowed(plan, 'a', 20, 1_000, { rateLimit: 1, burstLimit: 7 })).toBe(7);
  });
});

describe('Retry-After of a throttled key: whole seconds until its bucket holds a token, at least 1', () => {
  test('at 5/s, an empty bucket has a token within 200 ms: 1 s', () => {
    const plan = usagePlan();
    allowed(plan, 'a', 6, 1_000);
    expect(plan.retryAfterSeconds('a', 1_000)).toBe(1);
    expect(plan.retryAfterSeconds('a', 1_199)).toBe(1);
  });

  test('at 1 request every 4 s (rate 0.25/s), an empty bucket waits 4 s, then less as it refills', () => {
    const plan = usagePlan();
    const throttle = { rateLimit: 0.25, burstLimit: 1 };
    expect(allowed(plan, 'a', 2, 0, throttle)).toBe(1);
    expect(plan.retryAfterSeconds('a', 0)).toBe(4);
    expect(plan.retryAfterSeconds('a', 1_500)).toBe(3);
    expect(plan.retryAfterSeconds('a', 3_999)).toBe(1);
  });

  test('asking does not take a token: the request after the wait passes', () => {
    const plan = usagePlan();
    const throttle = { rateLimit: 1, burstLimit: 1 };
    allowed(plan, 'a', 2, 0, throttle);
    const wait = plan.retryAfterSeconds('a', 0);
    expect(plan.retryAfterSeconds('a', 0)).toBe(wait);
    expect(allowed(plan, 'a', 1, wait * 1000, throttle)).toBe(1);
  });
});
