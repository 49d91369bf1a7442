/** Entity tags and `If-Match` (docs/contract.md "Inventory semantics"; RFC 9110 §8.8.3, §13.1.1). */
import { describe, expect, test } from 'vitest';
import { HttpError } from '#lib/http/errors.ts';
import { entityTag, maxIfMatchTags, parseIfMatch } from '#lib/inventory/entity-tag.ts';
import { petStatuses } from '#lib/inventory/inventory-item.ts';

/** The Error body `parseIfMatch(values)` throws, or undefined when it returns. */
function refusal(values: string[]) {
  try {
    parseIfMatch(values);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return (error as HttpError).body;
  }
  return undefined;
}

const listRule = {
  code: 'invalid_request',
  message: 'If-Match must be * or a comma-separated list of entity tags such as "12-available"',
  status: 400,
};

describe('entityTag', () => {
  test('writes "<quantity>-<status>" in double quotes', () => {
    expect(entityTag({ quantity: 12, status: 'available' })).toBe('"12-available"');
    expect(entityTag({ quantity: 0, status: 'sold' })).toBe('"0-sold"');
  });
});

describe('parseIfMatch', () => {
  test('no If-Match is no precondition', () => {
    expect(parseIfMatch([])).toBeUndefined();
  });

  test.each([['*'], [' *'], ['* '], ['\t*\t']])('%j alone is "the entry exists"', (value) => {
    expect(parseIfMatch([value])).toEqual({ any: true });
  });

  test('a tag of this service names its state, for every status and both quantity ends', () => {
    for (const status of petStatuses) {
      for (const quantity of [0, 7, 2147483647]) {
        expect(parseIfMatch([entityTag({ quantity, status })])).toEqual({
          any: false,
          states: [{ quantity, status }],
        });
      }
    }
  });

  test('lists in one and several field lines give each distinct state once, in order', () => {
    expect(parseIfMatch(['"1-sold", "2-pending"', '"3-available","1-sold"'])).toEqual({
      any: false,
      states: [
        { quantity: 1, status: 'sold' },
        { quantity: 2, status: 'pending' },
        { quantity: 3, status: 'available' },
      ],
    });
  });

  test('empty list elements and spaces or tabs around them are allowed (RFC 9110 §5.6.1.2)', () => {
    expect(parseIfMatch([' , "1-sold" ,,\t"2-sold"\t,'])).toEqual({
      any: false,
      states: [
        { quantity: 1, status: 'sold' },
        { quantity: 2, status: 'sold' },
      ],
    });
  });

  test.each([
    ['a weak tag', 'W/"1-sold"'],
    ['a quantity above 2147483647', '"2147483648-sold"'],
    ['a quantity of 11 digits', '"10000000000-sold"'],
    ['a leading zero', '"01-sold"'],
    ['a sign', '"-1-sold"'],
    ['an unknown status', '"1-lost"'],
    ['a status in capitals', '"1-SOLD"'],
    ['no status', '"1"'],
    ['no quantity', '"-sold"'],
    ['text around our form', '"x1-sold"'],
    ['a comma inside', '"1-sold,"'],
    ['an empty tag', '""'],
    ['obs-text', '"\x80\xff"'],
  ])('%s is a well-formed tag that matches nothing', (_, value) => {
    expect(parseIfMatch([value])).toEqual({ any: false, states: [] });
  });

  test('a weak tag beside a strong one leaves the strong one', () => {
    expect(parseIfMatch(['W/"1-sold", "2-sold"'])).toEqual({
      any: false,
      states: [{ quantity: 2, status: 'sold' }],
    });
  });

  test.each([
    ['an unquoted tag', '1-sold'],
    ['an empty value', ''],
    ['only commas', ' , ,'],
    ['a tag followed by text', '"1-sold" x'],
    ['text before a tag', 'x "1-sold"'],
    ['two tags without a comma', '"1-sold""2-sold"'],
    ['a quote inside a tag', '"1-"sold"'],
    ['a control character in a tag', '"1-sold\x01"'],
    ['a space in a tag', '"1 sold"'],
    ['an unterminated tag', '"1-sold'],
    ['a lower-case weak prefix', 'w/"1-sold"'],
    ['* in a list', '*, "1-sold"'],
  ])('%s is 400 invalid_request naming the rule', (_, value) => {
    expect(refusal([value])).toEqual(listRule);
  });

  test('* beside another field line is 400, and so is an empty line beside a tag', () => {
    expect(refusal(['*', '"1-sold"'])).toEqual(listRule);
    expect(refusal(['*', '*'])).toEqual(listRule);
    expect(parseIfMatch(['', '"1-sold"'])).toEqual({ any: false, states: [{ quantity: 1, status: 'sold' }] });
  });

  test(`lists at most ${maxIfMatchTags} distinct tags of this service`, () => {
    const tags = (count: number) => Array.from({ length: count }, (_, quantity) => `"${quantity}-sold"`);
    expect(maxIfMatchTags).toBe(16);
    expect(parseIfMatch([tags(16).join(',')])).toMatchObject({ any: false, states: { length: 16 } });
    expect(parseIfMatch([[...tags(16), ...tags(16)].join(',')])).toMatchObject({ states: { length: 16 } });
    expect(parseIfMatch([[...tags(16), '"x"', 'W/"99-sold"'].join(',')])).toMatchObject({
      states: { length: 16 },
    });
    expect(refusal([tags(17).join(',')])).toEqual({
      code: 'invalid_request',
      message: 'If-Match may list at most 16 entity tags',
      status: 400,
    });
  });
});
