/**
 * getPetById's deprecation dates (docs/contract.md "Pets"): read from the environment's ISO 8601 text, refused
 * at init when they cannot be the dates of a deprecation, and written as the Deprecation and Sunset headers.
 */
import { describe, expect, test } from 'vitest';
import { HttpError } from '#lib/http/errors.ts';
import { deprecationDates, deprecationHeaders, refuseAfterSunset } from '#lib/pets/deprecation.ts';

const deprecatedAt = '2026-11-23T00:00:00Z';
const sunsetAt = '2027-06-30T23:59:59Z';

describe('deprecationDates', () => {
  test('reads both instants', () => {
    expect(deprecationDates(deprecatedAt, sunsetAt)).toStrictEqual({
      deprecatedAt: new Date(Date.UTC(2026, 10, 23)),
      sunsetAt: new Date(Date.UTC(2027, 5, 30, 23, 59, 59)),
    });
  });

  test.each([
    ['not-a-date', sunsetAt],
    [deprecatedAt, 'not-a-date'],
    ['', ''],
  ])('refuses %j and %j, naming both variables', (deprecated, sunset) => {
    expect(() => deprecationDates(deprecated, sunset)).toThrow(
      new Error('DEPRECATED_AT and SUNSET_AT must be ISO 8601 date-times'),
    );
  });

  test.each([
    ['at the deprecation', deprecatedAt],
    ['a second before it', '2026-11-22T23:59:59Z'],
  ])('refuses a sunset %s', (_when, sunset) => {
    expect(() => deprecationDates(deprecatedAt, sunset)).toThrow(
      new Error('the sunset must come after the deprecation'),
    );
  });

  test('accepts a sunset a millisecond after the deprecation', () => {
    expect(deprecationDates(deprecatedAt, '2026-11-23T00:00:00.001Z').sunsetAt.getTime()).toBe(
      Date.UTC(2026, 10, 23) + 1,
    );
  });
});

describe('deprecationHeaders', () => {
  test('Deprecation is @ and the epoch seconds (the milliseconds dropped), Sunset an IMF-fixdate', () => {
    const dates = deprecationDates('2026-11-23T00:00:00.999Z', sunsetAt);
    expect(deprecationHeaders(dates)).toStrictEqual({
      Deprecation: '@1795392000',
      Sunset: 'Wed, 30 Jun 2027 23:59:59 GMT',
    });
  });
});

describe('refuseAfterSunset', () => {
  const dates = deprecationDates(deprecatedAt, sunsetAt);

  test('lets a request a millisecond before the sunset through', () => {
    expect(refuseAfterSunset(dates, new Date(dates.sunsetAt.getTime() - 1), 'getPetById')).toBeUndefined();
  });

  test('answers 410 gone at the sunset, naming the operation and the date', () => {
    try {
      refuseAfterSunset(dates, dates.sunsetAt, 'getPetById');
      expect.unreachable('no 410 at the sunset');
    } catch (error) {
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).body).toStrictEqual({
        code: 'gone',
        message: 'getPetById was retired on Wed, 30 Jun 2027 23:59:59 GMT',
        status: 410,
      });
    }
  });
});
