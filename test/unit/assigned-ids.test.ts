/**
 * The ids the service assigns (docs/contract.md "Identifiers"): positive, at most 2^53 - 1, so that
 * `JSON.parse` reads them exactly; order ids grow with creation time over the years they cover.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { maxAssignedId, newOrderId, newPetId, orderIdEpoch } from '#lib/assigned-ids.ts';

/** The last millisecond order ids can count: 2^41 - 1 ms after the epoch. */
const lastMillisecond = orderIdEpoch + 2 ** 41 - 1;

/** True when `id` is canonical decimal, from 1 to 2^53 - 1, and read exactly by JSON.parse. */
function isExactlyReadable(id: string): boolean {
  return /^[1-9][0-9]*$/.test(id) && BigInt(id) <= 9007199254740991n && String(JSON.parse(id)) === id;
}

describe('newOrderId', () => {
  test('is from 1 to 9007199254740991 and read exactly by JSON.parse, from the first to the last millisecond it counts', () => {
    expect(maxAssignedId).toBe(9007199254740991);
    fc.assert(
      fc.property(fc.integer({ min: orderIdEpoch + 1, max: lastMillisecond }), (now) => {
        expect(isExactlyReadable(newOrderId(now))).toBe(true);
      }),
      { numRuns: 2000 },
    );
    for (const now of [orderIdEpoch + 1, lastMillisecond]) {
      for (let draw = 0; draw < 200; draw++) expect(isExactlyReadable(newOrderId(now))).toBe(true);
    }
  });

  test('an id of a later millisecond is larger than every id of an earlier one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: orderIdEpoch + 1, max: lastMillisecond - 1 }),
        fc.integer({ min: 1, max: 10_000 }),
        (earlier, step) => {
          const later = Math.min(earlier + step, lastMillisecond);
          expect(BigInt(newOrderId(later))).toBeGreaterThan(BigInt(newOrderId(earlier)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("ids of one millisecond cover its 4096 values and stay within it (the write's condition handles a repeat)", () => {
    const now = Date.UTC(2026, 10, 27, 13, 0, 0, 123);
    const first = BigInt(now - orderIdEpoch) * 4096n;
    const seen = new Set<bigint>();
    for (let draw = 0; draw < 100_000; draw++) {
      const id = BigInt(newOrderId(now));
      expect(id >= first && id < first + 4096n).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(4096);
  });

  test('refuses a clock outside the years it counts (2026-01-01 to 2095-09-07) instead of writing an id out of range', () => {
    for (const now of [
      orderIdEpoch,
      orderIdEpoch - 1,
      0,
      lastMillisecond + 1,
      Number.NaN,
      orderIdEpoch + 0.5,
    ]) {
      expect(() => newOrderId(now), String(now)).toThrow(RangeError);
    }
  });
});

describe('newPetId', () => {
  test('is from 1 to 9007199254740991 and read exactly by JSON.parse', () => {
    for (let draw = 0; draw < 10_000; draw++) expect(isExactlyReadable(newPetId())).toBe(true);
  });

  test('spreads over the whole range: draws fall in each eighth of it', () => {
    const eighths = new Set<number>();
    for (let draw = 0; draw < 1000; draw++) eighths.add(Number(BigInt(newPetId()) >> 50n));
    expect([...eighths].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
