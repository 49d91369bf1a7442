import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { HttpError } from '#lib/http/errors.ts';
import {
  comparePetIds,
  int64Member,
  int64Rule,
  parsePetId,
  petIdRule,
  toPetId,
} from '#lib/inventory/pet-id.ts';
import { InexactNumber } from '#lib/json-integers.ts';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

describe('petId (docs/contract.md "Identifiers")', () => {
  test('accepts every int64 written canonically and returns it digit for digit', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: int64Min, max: int64Max }), (value) => {
        expect(toPetId(value.toString())).toBe(value.toString());
      }),
      { numRuns: 2000 },
    );
  });

  test('accepts both ends of the int64 range', () => {
    expect(toPetId('9223372036854775807')).toBe('9223372036854775807');
    expect(toPetId('-9223372036854775808')).toBe('-9223372036854775808');
  });

  test('rejects integers just outside the int64 range', () => {
    expect(toPetId('9223372036854775808')).toBeUndefined();
    expect(toPetId('-9223372036854775809')).toBeUndefined();
  });

  test('rejects every integer outside the int64 range', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: int64Max + 1n, max: 2n ** 200n }),
          fc.bigInt({ min: -(2n ** 200n), max: int64Min - 1n }),
        ),
        (value) => {
          expect(toPetId(value.toString())).toBeUndefined();
        },
      ),
    );
  });

  test.each(['abc', '1.5', '01', '+1', ' 1', '1 ', '', '-', '1e3', '0x10', '١', '--1', '-01'])(
    'rejects %j',
    (text) => {
      expect(toPetId(text)).toBeUndefined();
    },
  );

  test('writes -0 as 0 (the same integer)', () => {
    expect(toPetId('-0')).toBe('0');
  });

  test('rejects any string that is not a canonical decimal integer', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 25 }), (text) => {
        fc.pre(!/^-?(0|[1-9][0-9]*)$/.test(text));
        expect(toPetId(text)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  test('parsePetId throws 400 invalid_request naming the rule', () => {
    for (const text of ['abc', undefined]) {
      const error = (() => {
        try {
          parsePetId(text);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).body).toEqual({
        code: 'invalid_request',
        message:
          "petId must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal without leading zeros or '+'",
        status: 400,
      });
    }
  });

  test('parsePetId returns the canonical petId of a valid path segment', () => {
    expect(parsePetId('5')).toBe('5');
    expect(parsePetId('-0')).toBe('0');
    expect(parsePetId('-9223372036854775808')).toBe('-9223372036854775808');
    expect(parsePetId('9223372036854775807')).toBe('9223372036854775807');
  });

  test('the int64 rule names the identifier and both ends of the range', () => {
    expect(int64Rule('orderId')).toBe(
      'orderId must be an integer from -9223372036854775808 to 9223372036854775807',
    );
    expect(petIdRule).toBe('petId must be an integer from -9223372036854775808 to 9223372036854775807');
  });

  test('int64Member gives the canonical text of an exact int64 body member', () => {
    expect(int64Member(5, 'orderId')).toBe('5');
    expect(int64Member(-0, 'orderId')).toBe('0');
    expect(int64Member(new InexactNumber('9223372036854775807'), 'orderId')).toBe('9223372036854775807');
    expect(int64Member(new InexactNumber('-9223372036854775808'), 'orderId')).toBe('-9223372036854775808');
    expect(int64Member(new InexactNumber('5.0e0'), 'orderId')).toBe('5');
  });

  test.each([
    ['a string', '5'],
    ['a fraction', 1.5],
    ['null', null],
    ['a number beyond int64', new InexactNumber('9223372036854775808')],
    ['a number below int64', new InexactNumber('-9223372036854775809')],
    ['an inexact fraction', new InexactNumber('9223372036854775807.5')],
  ])('int64Member refuses %s with 400 invalid_request naming the member', (_, value) => {
    let thrown: unknown;
    try {
      int64Member(value, 'orderId');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect((thrown as HttpError).body).toEqual({
      code: 'invalid_request',
      message: 'orderId must be an integer from -9223372036854775808 to 9223372036854775807',
      status: 400,
    });
  });

  test('comparePetIds finds a petId equal to itself', () => {
    for (const petId of ['0', '5', '-5', '9223372036854775807', '-9223372036854775808']) {
      expect(comparePetIds(petId, petId)).toBe(0);
    }
  });

  test('comparePetIds orders petIds as BigInt does', () => {
    const petId = fc.bigInt({ min: int64Min, max: int64Max }).map(String);
    fc.assert(
      fc.property(petId, petId, (a, b) => {
        const expected = BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
        expect(Math.sign(comparePetIds(a, b))).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});
