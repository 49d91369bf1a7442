/** Generators of hostile identifier path segments (docs/contract.md "Identifiers"). */
import fc from 'fast-check';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const digit = fc.constantFrom(...'0123456789');

/**
 * Identifier texts (before percent-encoding): mostly `known` ids and int64 values, the int64 edges and their
 * neighbours beyond, non-canonical number forms and look-alikes, digits with an insertion, long digit runs and
 * random graphemes.
 */
export function idText(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 3, arbitrary: fc.bigInt({ min: int64Min, max: int64Max }).map(String) },
    fc.bigInt({ min: -5n, max: 5n }).map((offset) => String(int64Max + offset)),
    fc.bigInt({ min: -5n, max: 5n }).map((offset) => String(int64Min + offset)),
    fc
      .tuple(fc.bigInt({ min: int64Max + 1n, max: 10n ** 30n }), fc.boolean())
      .map(([value, negative]) => String(negative ? -value : value)),
    fc.constantFrom(
      '',
      '-',
      '-0',
      '--1',
      '+1',
      '+0',
      '00',
      '01',
      '-01',
      '1.0',
      '1.5',
      '1e3',
      '0x10',
      '0b1',
      '1_000',
      '.',
      '..',
      '.7',
      '7.',
    ),
    fc.constantFrom(
      ' 1',
      '1 ',
      '\t1',
      '1\n',
      '١',
      '７',
      '1\u0000',
      '\u200b1',
      '1\u00ad',
      'Infinity',
      'NaN',
      'null',
      'true',
      '7/8',
      '7?x',
      '7#x',
    ),
    fc
      .tuple(
        fc.stringMatching(/^-?[1-9][0-9]{0,18}$/),
        fc.nat({ max: 20 }),
        fc.string({ minLength: 1, maxLength: 2 }),
      )
      .map(([text, at, insert]) => text.slice(0, at) + insert + text.slice(at)),
    fc.array(digit, { minLength: 1, maxLength: 25 }).map((digits) => digits.join('')),
    fc.nat({ max: 2000 }).map((length) => `1${'0'.repeat(length)}`),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  );
}

/**
 * Percent-encodes every UTF-8 byte of `text` except unreserved letters, digits, `-`, `_`, `~`; those are
 * encoded too where `encodeAlso` says so, with upper or lower case hex.
 */
export function percentEncode(text: string, encodeAlso: readonly boolean[], lowerHex: boolean): string {
  let out = '';
  let i = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (/^[A-Za-z0-9_~-]$/.test(char) && !encodeAlso[i++ % Math.max(encodeAlso.length, 1)]) out += char;
    else {
      const hex = byte.toString(16).padStart(2, '0');
      out += `%${lowerHex ? hex : hex.toUpperCase()}`;
    }
  }
  return out;
}

/** Path segments of {@link idText} texts, percent-encoded by {@link percentEncode} in varied ways. */
export function idSegment(known: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(idText(known), fc.array(fc.nat({ max: 4 }).map((n) => n === 0)), fc.boolean())
    .map(([text, encodeAlso, lowerHex]) => percentEncode(text, encodeAlso, lowerHex));
}
