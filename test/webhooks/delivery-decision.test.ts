/**
 * The delivery's decision, pure (lib/webhooks/delivery-decision.ts; docs/contract.md "History and events"): the
 * exact action for each case before and after an attempt, the schedule's jitter (±20%) and a receiver's
 * `Retry-After` (429 or 503; seconds or an HTTP date; at most 24 hours).
 */
import { describe, expect, test } from 'vitest';
import type { AttemptOutcome } from '#lib/webhooks/delivery-attempt.ts';
import {
  type Attempt,
  admit,
  attemptNumber,
  type DecisionEndpoint,
  decide,
  nextAttemptAt,
} from '#lib/webhooks/delivery-decision.ts';
import type { DeliveryMessage } from '#lib/webhooks/delivery-message.ts';
import { retryAfterSeconds } from '#lib/webhooks/retry-after.ts';
import { jitteredDelay } from '#lib/webhooks/retry-schedule.ts';

const now = new Date('2026-12-08T10:00:00.000Z');
/** `now` plus `seconds`. */
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const message: DeliveryMessage = {
  endpointId: 'ws_AAAAAAAAAAAAAAAA',
  eventId: 'inventory.7.1',
  type: 'inventory.changed',
  timestamp: '2026-12-08T09:59:59.000Z',
  data: { endpointId: 'ws_AAAAAAAAAAAAAAAA' },
};
const enabled: DecisionEndpoint = { endpointId: message.endpointId, state: 'enabled' };
const isolated: DecisionEndpoint = { ...enabled, state: 'isolated' };
const failing: DecisionEndpoint = { ...isolated, failingSince: '2026-12-08T09:00:00.000Z' };
/** The schedule: 5 s, 300 s, 43200 s; the breaker after 5 days; the jitter's middle sample (no change). */
const rules = { retryDelays: [5, 300, 43_200], disableAfterSeconds: 432_000, jitterSample: 0.5 };
const fast: Attempt = { message, lane: 'fast', number: 1 };
const slow = (number: number, withMessage = message): Attempt => ({
  message: withMessage,
  lane: 'slow',
  number,
});
const failed503 = (retryAfter?: string): AttemptOutcome => ({
  delivered: false,
  status: 503,
  error: 'HTTP 503',
  ...(retryAfter !== undefined && { retryAfter }),
});
const quickly = { durationMs: 100 };
const slowly = { durationMs: 5_000 };

describe('before the attempt (admit)', () => {
  test('a gone endpoint: drop', () => {
    expect(admit(undefined, fast, now)).toStrictEqual({ kind: 'drop' });
  });

  test('a disabled endpoint: kept without an attempt, the attempts made so far counted', () => {
    const disabled = { ...enabled, state: 'disabled' as const };
    expect(admit(disabled, slow(3), now)).toStrictEqual({
      kind: 'keep',
      why: 'disabled',
      attempts: 2,
      error: 'not attempted: the endpoint is disabled',
    });
  });

  test('the fast lane, an endpoint not enabled: moved to the slow lane at once, the message unchanged', () => {
    expect(admit(isolated, fast, now)).toStrictEqual({
      kind: 'move',
      why: 'not_enabled',
      message,
      delaySeconds: 0,
      dueAt: now,
    });
  });

  test('a message waiting for its notBefore is sent on, hidden at most 900 s at a time', () => {
    const waiting = { ...message, priorAttempts: 2, notBefore: at(3_600).toISOString() };
    expect(admit(isolated, slow(3, waiting), now)).toStrictEqual({
      kind: 'move',
      why: 'waiting',
      message: waiting,
      delaySeconds: 900,
      dueAt: at(3_600),
    });
    const soon = { ...waiting, notBefore: at(12.5).toISOString() };
    expect(admit(isolated, slow(3, soon), now)).toMatchObject({ kind: 'move', delaySeconds: 13 });
  });

  test('otherwise attempted, cut at 2 s in the fast lane and 10 s in the slow lane', () => {
    expect(admit(enabled, fast, now)).toStrictEqual({ kind: 'attempt', endpoint: enabled, timeoutMs: 2_000 });
    const due = { ...message, notBefore: now.toISOString() };
    expect(admit(isolated, slow(2, due), now)).toStrictEqual({
      kind: 'attempt',
      endpoint: isolated,
      timeoutMs: 10_000,
    });
  });

  test("an attempt's number: 1 in the fast lane, priorAttempts plus the receives in the slow lane", () => {
    expect(attemptNumber('fast', message, 4)).toBe(1);
    expect(attemptNumber('slow', message, 2)).toBe(2);
    expect(attemptNumber('slow', { ...message, priorAttempts: 3 }, 2)).toBe(5);
  });
});

describe('after the attempt (decide)', () => {
  test('delivered by an enabled endpoint: no endpoint change', () => {
    expect(
      decide(enabled, { ...fast, ...quickly }, { delivered: true, status: 204 }, now, rules),
    ).toStrictEqual({
      kind: 'delivered',
    });
  });

  test('delivered by a failing endpoint: its failing period ends; enabled again only when quick', () => {
    const ok: AttemptOutcome = { delivered: true, status: 200 };
    expect(decide(failing, { ...slow(2), ...quickly }, ok, now, rules)).toStrictEqual({
      kind: 'delivered',
      endpoint: { enable: true },
    });
    expect(decide(failing, { ...slow(2), ...slowly }, ok, now, rules)).toStrictEqual({
      kind: 'delivered',
      endpoint: { enable: false },
    });
    expect(decide(isolated, { ...slow(1), ...slowly }, ok, now, rules)).toStrictEqual({ kind: 'delivered' });
  });

  test('a fast-lane attempt cut by its timeout: moved at once, the endpoint isolated without a failing period', () => {
    const cut: AttemptOutcome = { delivered: false, timedOut: true, error: 'no response within 2 s' };
    expect(decide(enabled, { ...fast, durationMs: 2_000 }, cut, now, rules)).toStrictEqual({
      kind: 'move',
      why: 'cut',
      message,
      delaySeconds: 0,
      dueAt: now,
      endpoint: { change: 'isolated' },
    });
  });

  test('a failed first attempt moves to the slow lane after the first delay, counted; the failing period starts', () => {
    expect(decide(enabled, { ...fast, ...quickly }, failed503(), now, rules)).toStrictEqual({
      kind: 'move',
      why: 'failed',
      message: { ...message, priorAttempts: 1 },
      delaySeconds: 5,
      dueAt: at(5),
      endpoint: { change: 'failing', at: now },
    });
  });

  test('a failed slow-lane attempt is retried in place after its delay; an endpoint already failing is left as it is', () => {
    expect(decide(failing, { ...slow(2), ...quickly }, failed503(), now, rules)).toStrictEqual({
      kind: 'retry',
      delaySeconds: 300,
      dueAt: at(300),
    });
  });

  test('the breaker: failing for its period, the failed attempt disables the endpoint and is kept', () => {
    const since = new Date(now.getTime() - 432_000_000).toISOString();
    const dead = { ...isolated, failingSince: since };
    const outcome: AttemptOutcome = { delivered: false, error: 'connect ECONNREFUSED 127.0.0.1:9' };
    expect(decide(dead, { ...slow(2), ...quickly }, outcome, now, rules)).toStrictEqual({
      kind: 'keep',
      why: 'breaker',
      attempts: 2,
      error: 'connect ECONNREFUSED 127.0.0.1:9',
      endpoint: { change: 'disabled', failingSince: since, at: now },
    });
    const nearly = { ...isolated, failingSince: new Date(now.getTime() - 431_999_000).toISOString() };
    expect(decide(nearly, { ...slow(2), ...quickly }, outcome, now, rules)).toMatchObject({ kind: 'retry' });
  });

  test("after the schedule's last attempt the delivery is kept, with its last status", () => {
    expect(decide(failing, { ...slow(4), ...quickly }, failed503(), now, rules)).toStrictEqual({
      kind: 'keep',
      why: 'exhausted',
      attempts: 4,
      status: 503,
      error: 'HTTP 503',
    });
  });

  test("a delay past SQS's 12-hour visibility moves the message on with its notBefore", () => {
    const late = { ...rules, jitterSample: 0.99 };
    expect(
      decide(failing, { ...slow(3, { ...message, priorAttempts: 1 }), ...quickly }, failed503(), now, late),
    ).toStrictEqual({
      kind: 'move',
      why: 'failed',
      message: { ...message, priorAttempts: 3, notBefore: at(51_667).toISOString() },
      delaySeconds: 900,
      dueAt: at(51_667),
    });
  });
});

describe('Retry-After (429 and 503)', () => {
  test('seconds: the next attempt at least that late, the scheduled delay when that is later', () => {
    expect(decide(failing, { ...slow(2), ...quickly }, failed503('15'), now, rules)).toStrictEqual({
      kind: 'retry',
      delaySeconds: 300,
      dueAt: at(300),
    });
    expect(decide(enabled, { ...fast, ...quickly }, failed503('15'), now, rules)).toMatchObject({
      kind: 'move',
      delaySeconds: 15,
      dueAt: at(15),
    });
    const tooMany: AttemptOutcome = { delivered: false, status: 429, error: 'HTTP 429', retryAfter: '3600' };
    expect(decide(failing, { ...slow(2), ...quickly }, tooMany, now, rules)).toStrictEqual({
      kind: 'retry',
      delaySeconds: 3_600,
      dueAt: at(3_600),
    });
  });

  test('an HTTP date: the next attempt at that time (rounded up to the second)', () => {
    const date = at(1_200.4).toUTCString();
    expect(decide(failing, { ...slow(2), ...quickly }, failed503(date), now, rules)).toStrictEqual({
      kind: 'retry',
      delaySeconds: 1_200,
      dueAt: at(1_200),
    });
  });

  test('at most 24 hours: carried past the visibility limit by notBefore', () => {
    expect(decide(failing, { ...slow(2), ...quickly }, failed503('999999'), now, rules)).toStrictEqual({
      kind: 'move',
      why: 'failed',
      message: { ...message, priorAttempts: 2, notBefore: at(86_400).toISOString() },
      delaySeconds: 900,
      dueAt: at(86_400),
    });
  });

  test('shorter than the scheduled delay, on another status, or invalid: the schedule applies', () => {
    const other: AttemptOutcome = { delivered: false, status: 500, error: 'HTTP 500', retryAfter: '3600' };
    for (const outcome of [failed503('2'), other, failed503('soon'), failed503('-5'), failed503('3.5')]) {
      expect(decide(failing, { ...slow(2), ...quickly }, outcome, now, rules)).toStrictEqual({
        kind: 'retry',
        delaySeconds: 300,
        dueAt: at(300),
      });
    }
  });

  test('the header forms of RFC 9110: delay-seconds and the three HTTP-date forms; anything else ignored', () => {
    const epoch = new Date('1994-11-06T08:49:00.000Z');
    expect(retryAfterSeconds(' 120 ', epoch)).toBe(120);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', epoch)).toBe(37);
    expect(retryAfterSeconds('Sunday, 06-Nov-94 08:49:37 GMT', epoch)).toBe(37);
    expect(retryAfterSeconds('Sun Nov  6 08:49:37 1994', epoch)).toBe(37);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:48:00 GMT', epoch)).toBe(0);
    expect(retryAfterSeconds('Mon, 07 Nov 1994 08:49:01 GMT', epoch)).toBe(86_400);
    for (const invalid of [
      undefined,
      '',
      '3.5',
      '-1',
      '1994-11-06T08:49:37Z',
      'Sun, 32 Nov 1994 08:49:37 GMT',
    ]) {
      expect(retryAfterSeconds(invalid, epoch)).toBeUndefined();
    }
  });
});

describe('jitter (±20%)', () => {
  test('a delay is drawn from [0.8, 1.2] times the scheduled one: the sample’s ends give the bounds', () => {
    expect(jitteredDelay(1_000, 0)).toBe(800);
    expect(jitteredDelay(1_000, 0.5)).toBe(1_000);
    expect(jitteredDelay(1_000, 0.999_999)).toBe(1_200);
    expect(jitteredDelay(0, 0.7)).toBe(0);
    expect(
      decide(failing, { ...slow(2), ...quickly }, failed503(), now, { ...rules, jitterSample: 0 }),
    ).toMatchObject({
      delaySeconds: 240,
    });
  });

  test('spread: random samples fill the range, each within it, so endpoints failing together retry apart', () => {
    const delays = Array.from({ length: 2_000 }, () => jitteredDelay(36_000, Math.random()));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(28_800);
    expect(Math.max(...delays)).toBeLessThanOrEqual(43_200);
    expect(Math.min(...delays)).toBeLessThan(29_500);
    expect(Math.max(...delays)).toBeGreaterThan(42_500);
    // Uniform: each fifth of the range holds about a fifth of the draws.
    const fifths = [0, 1, 2, 3, 4].map(
      (fifth) => delays.filter((delay) => Math.min(4, Math.floor((delay - 28_800) / 2_880)) === fifth).length,
    );
    for (const count of fifths) expect(count).toBeGreaterThan(300);
  });
});

test("the attempt log's next time is the action's due time, none when delivered or kept", () => {
  expect(nextAttemptAt({ kind: 'retry', delaySeconds: 3, dueAt: at(3) })).toStrictEqual(at(3));
  expect(nextAttemptAt({ kind: 'delivered' })).toBeUndefined();
  expect(nextAttemptAt({ kind: 'keep', why: 'exhausted', attempts: 4, error: 'HTTP 500' })).toBeUndefined();
});

describe('the bounds of the decision', () => {
  const ok: AttemptOutcome = { delivered: true, status: 200 };

  test('an attempt that took exactly 2 s is not quick: the endpoint recovers but is not enabled', () => {
    expect(decide(failing, { ...slow(2), durationMs: 2_000 }, ok, now, rules)).toStrictEqual({
      kind: 'delivered',
      endpoint: { enable: false },
    });
    expect(decide(failing, { ...slow(2), durationMs: 1_999 }, ok, now, rules)).toStrictEqual({
      kind: 'delivered',
      endpoint: { enable: true },
    });
  });

  test('an isolated endpoint (cut, never failed) that answers quickly is enabled again', () => {
    expect(decide(isolated, { ...slow(1), ...quickly }, ok, now, rules)).toStrictEqual({
      kind: 'delivered',
      endpoint: { enable: true },
    });
  });

  test('a slow-lane attempt cut by its timeout is a failure: retried after its delay, the failing period starts', () => {
    const cut: AttemptOutcome = { delivered: false, timedOut: true, error: 'no response within 10 s' };
    expect(decide(isolated, { ...slow(2), durationMs: 10_000 }, cut, now, rules)).toStrictEqual({
      kind: 'retry',
      delaySeconds: 300,
      dueAt: at(300),
      endpoint: { change: 'failing', at: now },
    });
  });

  test('an endpoint failing while still enabled is marked failing again; an isolated one not yet failing starts', () => {
    const enabledFailing = { ...enabled, failingSince: '2026-12-08T09:00:00.000Z' };
    expect(decide(enabledFailing, { ...slow(2), ...quickly }, failed503(), now, rules)).toStrictEqual({
      kind: 'retry',
      delaySeconds: 300,
      dueAt: at(300),
      endpoint: { change: 'failing', at: now },
    });
  });

  test("the schedule's last attempt failing on an endpoint not yet failing: kept, and its failing period starts", () => {
    expect(decide(enabled, { ...slow(4), ...quickly }, failed503(), now, rules)).toStrictEqual({
      kind: 'keep',
      why: 'exhausted',
      attempts: 4,
      status: 503,
      error: 'HTTP 503',
      endpoint: { change: 'failing', at: now },
    });
  });

  test("a delay of exactly SQS's 12-hour visibility is retried in place", () => {
    expect(decide(failing, { ...slow(3), ...quickly }, failed503(), now, rules)).toStrictEqual({
      kind: 'retry',
      delaySeconds: 43_200,
      dueAt: at(43_200),
    });
  });

  test("a delay of exactly SQS's 900 s message delay moves without a notBefore", () => {
    expect(decide(enabled, { ...fast, ...quickly }, failed503('900'), now, rules)).toStrictEqual({
      kind: 'move',
      why: 'failed',
      message: { ...message, priorAttempts: 1 },
      delaySeconds: 900,
      dueAt: at(900),
      endpoint: { change: 'failing', at: now },
    });
  });

  test("a move's next attempt is due at its due time too", () => {
    expect(
      nextAttemptAt({ kind: 'move', why: 'failed', message, delaySeconds: 5, dueAt: at(5) }),
    ).toStrictEqual(at(5));
  });
});

test('an asctime Retry-After is read in UTC whatever the local time zone', () => {
  const zone = process.env.TZ;
  process.env.TZ = 'America/New_York';
  try {
    const epoch = new Date('1994-11-06T08:49:00.000Z');
    expect(retryAfterSeconds('Sun Nov  6 08:49:37 1994', epoch)).toBe(37);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:37 GMT', epoch)).toBe(37);
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});
