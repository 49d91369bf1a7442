/**
 * Integers judged on the JSON source text (docs/contract.md "Integers in request bodies"): lib/json-integers.ts,
 * checked against exact decimal arithmetic on the literal (BigInt), never against the rounded double.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { exactIntegers, InexactNumber, jsonInteger } from '#lib/json-integers.ts';

/** `JSON.parse` of `text` with the reviver under test. */
const parse = (text: string) => JSON.parse(text, exactIntegers);

describe('jsonInteger: the integer a number literal denotes, exactly', () => {
  test.each([
    ['5', 5n],
    ['5.0', 5n],
    ['5e0', 5n],
    ['0.5e1', 5n],
    ['50E-1', 5n],
    ['-0', 0n],
    ['0e-400', 0n],
    ['0.000e999999999999', 0n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808.000', -9223372036854775808n],
    ['9007199254740993', 9007199254740993n],
    ['1e39', 10n ** 39n],
  ])('%s is %s', (literal, value) => {
    expect(jsonInteger(literal)).toBe(value);
  });

  test.each([
    '1e-400',
    '4.9999999999999999',
    '2147483647.0000001',
    '0.1',
    '1.5e0',
    '1e41',
    '1e999999999999',
    '',
    '+1',
    'abc',
  ])('%s is not (a non-integer, beyond 40 digits, or not a literal)', (literal) => {
    expect(jsonInteger(literal)).toBeUndefined();
  });

  test('agrees with exact decimal arithmetic on any literal digits x 10^exponent', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }),
        fc.integer({ min: -30, max: 15 }),
        (digits, exponent) => {
          const literal = `${digits}e${exponent}`;
          const scale = 10n ** BigInt(Math.abs(exponent));
          const exact = exponent >= 0 ? digits * scale : digits % scale === 0n ? digits / scale : undefined;
          const expected =
            exact !== undefined && exact.toString().replace('-', '').length <= 40 ? exact : undefined;
          expect(jsonInteger(literal)).toBe(expected);
        },
      ),
    );
  });
});

describe('jsonInteger on literals of 100,000 digits (docs/contract.md "Bounded cost, clean shutdown")', () => {
  const run = '0'.repeat(100_000);
  test.each([
    [`5.${run}`, 5n],
    [`-5${run}e-100000`, -5n],
    [`0.${run}`, 0n],
    [`${run.slice(1)}0`, 0n],
    [`0.${run}1e100001`, 1n],
    [`1e${run}1`, 10n],
  ])('%#: a long integer-valued form is judged exactly', (literal, value) => {
    expect(jsonInteger(literal)).toBe(value);
  });

  test.each([[`1${run}`], [`1${run}1`], [`0.${run}1`], [`5.${run}1`], ['1e-100000'], [`1e-${run}1`]])(
    '%#: a long non-integer or one beyond 40 digits is undefined',
    (literal) => {
      expect(jsonInteger(literal)).toBeUndefined();
    },
  );
});

describe('exactIntegers: a JSON.parse reviver', () => {
  test('5, 5.0 and 5e0 are the number 5', () => {
    expect(parse('[5, 5.0, 5e0, -0]')).toStrictEqual([5, 5, 5, -0]);
  });

  test('non-integers and integers a double would round become InexactNumber with their source text', () => {
    expect(
      parse('{"a": 1e-400, "b": 4.9999999999999999, "c": 2147483647.0000001, "d": 9007199254740993}'),
    ).toStrictEqual({
      a: new InexactNumber('1e-400'),
      b: new InexactNumber('4.9999999999999999'),
      c: new InexactNumber('2147483647.0000001'),
      d: new InexactNumber('9007199254740993'),
    });
  });

  test('other values are left as parsed', () => {
    expect(parse('{"s": "5.5", "t": true, "n": null, "o": {"a": [1]}}')).toStrictEqual({
      s: '5.5',
      t: true,
      n: null,
      o: { a: [1] },
    });
  });
});
