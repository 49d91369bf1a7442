/**
 * listInventoryHistory's cursor (docs/contract.md "History and events"): the base64url text of a sequence from
 * 1 to 2^53 - 1, read back only as the service writes it; any other cursor is a 400.
 */
import { describe, expect, test } from 'vitest';
import { historyCursor, parseHistoryCursor } from '#lib/inventory/history-cursor.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

const invalidCursor = {
  code: 'invalid_request',
  message: 'cursor is not valid: use the one of the Link header of the previous page',
  status: 400,
};

describe('history cursor', () => {
  test('is the base64url text of the sequence, without padding', () => {
    expect(historyCursor('1')).toBe('MQ');
    expect(historyCursor('9007199254740991')).toBe('OTAwNzE5OTI1NDc0MDk5MQ');
  });

  test('reads back the sequence of every cursor it wrote, 1 to 2^53 - 1', () => {
    for (const sequence of ['1', '9', '10', '123456', '9007199254740991']) {
      expect(parseHistoryCursor(historyCursor(sequence))).toBe(sequence);
    }
  });

  test('no cursor is the first page', () => {
    expect(parseHistoryCursor(undefined)).toBeUndefined();
  });

  test.each([
    ['empty', ''],
    ['padded', 'MQ=='],
    ['with characters outside base64url', 'Pz8/'],
    ['another encoding of 1', 'MR'],
    ['with a space', ' MQ'],
    ['the sequence 0', historyCursor('0')],
    ['a leading zero', historyCursor('01')],
    ['a sign', historyCursor('-1')],
    ['a fraction', historyCursor('1.5')],
    ['2^53', historyCursor('9007199254740992')],
    ['17 digits', historyCursor('10000000000000000')],
    ['not a number', historyCursor('abc')],
    ['a number after text', historyCursor('x1')],
    ['a number before text', historyCursor('1x')],
  ])('refuses a cursor %s with 400', (_what, cursor) => {
    expect(thrownErrorBody(() => parseHistoryCursor(cursor))).toStrictEqual(invalidCursor);
  });
});
