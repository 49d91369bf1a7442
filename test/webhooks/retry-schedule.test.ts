import { describe, expect, test } from 'vitest';
import {
  deliveryScheduleFrom,
  disableAfterSecondsFrom,
  retryDelaysFrom,
} from '#lib/webhooks/delivery-settings.ts';
import { defaultRetryDelays, retryScheduleProblem } from '#lib/webhooks/retry-schedule.ts';

describe('WEBHOOK_RETRY_DELAYS', () => {
  test('unset or empty: the Standard Webhooks schedule, 8 attempts over at least 24 hours', () => {
    expect(retryDelaysFrom(undefined)).toStrictEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(retryDelaysFrom('')).toBe(defaultRetryDelays);
    expect(retryDelaysFrom('  ')).toBe(defaultRetryDelays);
    const seconds = defaultRetryDelays.reduce((sum, delay) => sum + delay, 0);
    expect(seconds).toBeGreaterThanOrEqual(24 * 3600);
    expect(seconds).toBe(99_305);
  });

  test('whole seconds, comma-separated, spaces allowed', () => {
    expect(retryDelaysFrom('1, 2,3')).toStrictEqual([1, 2, 3]);
    expect(retryDelaysFrom('0,43200')).toStrictEqual([0, 43200]);
    expect(retryDelaysFrom('900,43200')).toStrictEqual([900, 43200]);
  });

  test.each(['5,,300', '1.5', '-1', '5,43201', 'ten', '901,5', '0x10', '1e3', '  ,5'])(
    '%j is a deployment fault (the first delay at most 900 s: a delivery moves to the slow lane with it)',
    (value) => {
      expect(() => retryDelaysFrom(value)).toThrow(
        `WEBHOOK_RETRY_DELAYS must be whole seconds from 0 to 43200 (the first to 900), comma-separated, not ${JSON.stringify(value)}`,
      );
    },
  );
});

describe('WEBHOOK_DISABLE_AFTER_SECONDS', () => {
  test('unset or empty: 5 days', () => {
    expect(disableAfterSecondsFrom(undefined)).toBe(432_000);
    expect(disableAfterSecondsFrom(' ')).toBe(432_000);
  });

  test('whole seconds from 1', () => {
    expect(disableAfterSecondsFrom(' 1 ')).toBe(1);
    expect(disableAfterSecondsFrom('120')).toBe(120);
  });

  test.each(['0', '1.5', '-1', 'ten', '0x10', '1e3'])('%j is a deployment fault', (value) => {
    expect(() => disableAfterSecondsFrom(value)).toThrow(
      `WEBHOOK_DISABLE_AFTER_SECONDS must be whole seconds from 1, not ${JSON.stringify(value)}`,
    );
  });
});

describe("a schedule (the stack's settings and the environment alike)", () => {
  test('whole seconds from 0 to 43200, the first at most 900: no problem', () => {
    expect(retryScheduleProblem([900, 0, 43_200])).toBeUndefined();
    expect(retryScheduleProblem([])).toBeUndefined();
  });

  test.each([
    [[5, 1.5], 'webhook retry delay 1.5 is not a whole number of seconds from 0 to 43200'],
    [[5, -1], 'webhook retry delay -1 is not a whole number of seconds from 0 to 43200'],
    [[5, 43_201], 'webhook retry delay 43201 is not a whole number of seconds from 0 to 43200'],
    [[901, 5], "the first webhook retry delay 901 is over 900 s, SQS's longest message delay"],
  ])('%j: %s', (delays, problem) => {
    expect(retryScheduleProblem(delays)).toBe(problem);
  });
});

test("the delivery's schedule from its environment", () => {
  expect(
    deliveryScheduleFrom({ WEBHOOK_RETRY_DELAYS: '5,60', WEBHOOK_DISABLE_AFTER_SECONDS: '120' }),
  ).toStrictEqual({ retryDelays: [5, 60], disableAfterSeconds: 120 });
  expect(deliveryScheduleFrom({})).toStrictEqual({
    retryDelays: defaultRetryDelays,
    disableAfterSeconds: 432_000,
  });
});
