/**
 * The delivery function's schedule from its environment: the retry delays (`WEBHOOK_RETRY_DELAYS`) and the
 * breaker's period (`WEBHOOK_DISABLE_AFTER_SECONDS`), both shortened locally to watch a retry or the breaker
 * (docs/operating.md "Webhooks").
 * @module
 */

import { defaultDisableAfterSeconds } from './breaker.ts';
import {
  defaultRetryDelays,
  maxDelaySeconds,
  maxVisibilityTimeoutSeconds,
  retryScheduleProblem,
} from './retry-schedule.ts';
import { webhookEnv } from './webhook-env.ts';

/** What the delivery follows: the delays in seconds before attempts 2, 3, ..., and the breaker's period in seconds. */
export interface DeliverySchedule {
  retryDelays: readonly number[];
  disableAfterSeconds: number;
}

/**
 * The delays from `WEBHOOK_RETRY_DELAYS` (seconds, comma-separated: `5,300,1800`), or the default when unset
 * or empty; `n` delays mean `n + 1` attempts.
 * @throws Error when an item is not a whole number from 0 to 43200, or the first is over 900: a deployment fault.
 */
export function retryDelaysFrom(value: string | undefined): readonly number[] {
  if (value === undefined || value.trim() === '') return defaultRetryDelays;
  const items = value.split(',').map((item) => item.trim());
  const delays = items.map(Number);
  if (!items.every((item) => /^[0-9]+$/.test(item)) || retryScheduleProblem(delays) !== undefined) {
    throw new Error(
      `WEBHOOK_RETRY_DELAYS must be whole seconds from 0 to ${maxVisibilityTimeoutSeconds} (the first to ${maxDelaySeconds}), comma-separated, not ${JSON.stringify(value)}`,
    );
  }
  return delays;
}

/**
 * The breaker's period from `WEBHOOK_DISABLE_AFTER_SECONDS` (whole seconds, at least 1), or the default when
 * unset or empty.
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

/**
 * The schedule from the environment `env` (`process.env` in the function).
 * @throws Error when a variable is malformed: a deployment fault, at the container's init.
 */
export function deliveryScheduleFrom(env: Readonly<Record<string, string | undefined>>): DeliverySchedule {
  return {
    retryDelays: retryDelaysFrom(env[webhookEnv.retryDelays]),
    disableAfterSeconds: disableAfterSecondsFrom(env[webhookEnv.disableAfterSeconds]),
  };
}
