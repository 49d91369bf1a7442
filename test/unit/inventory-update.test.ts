import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { HttpError } from '#lib/http/errors.ts';
import { parseInventoryUpdate } from '#lib/inventory/inventory-update.ts';

/** The Error body thrown by parsing `body`, or undefined when it parses. */
function rejection(body: unknown) {
  try {
    parseInventoryUpdate(body);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return (error as HttpError).body;
  }
}

const quantityRule = {
  code: 'invalid_request',
  message: 'quantity must be an integer from 0 to 2147483647',
  status: 400,
};

describe('InventoryUpdate (docs/contract.md "InventoryUpdate")', () => {
  test('accepts every integer quantity from 0 to 2147483647', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2147483647 }), (quantity) => {
        expect(parseInventoryUpdate({ quantity })).toEqual({ quantity });
      }),
      { numRuns: 2000 },
    );
  });

  test('rejects every integer outside 0..2147483647 with 400 invalid_request', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -1 }),
          fc.integer({ min: 2147483648, max: Number.MAX_SAFE_INTEGER }),
          fc.constant(-0.5),
          fc.constant(2 ** 53),
        ),
        (quantity) => {
          expect(rejection({ quantity })).toEqual(quantityRule);
        },
      ),
    );
  });

  test('rejects fractional quantities with 400 invalid_request', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true }).filter((d) => !Number.isInteger(d)),
        (quantity) => {
          expect(rejection({ quantity })).toEqual(quantityRule);
        },
      ),
    );
  });

  test.each([['5'], [true], [null], [[5]], [{ n: 5 }], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'rejects quantity %j with 400 invalid_request',
    (quantity) => {
      expect(rejection({ quantity })).toEqual(quantityRule);
    },
  );

  test('accepts 5.0, which JSON reads as the integer 5', () => {
    expect(parseInventoryUpdate(JSON.parse('{"quantity": 5.0}'))).toEqual({ quantity: 5 });
  });

  test('rejects a body without quantity', () => {
    expect(rejection({})).toEqual({ code: 'invalid_request', message: 'quantity is required', status: 400 });
  });

  test('rejects any other member and names it', () => {
    expect(rejection({ quantity: 1, status: 'sold' })).toEqual({
      code: 'invalid_request',
      message: 'request body may only contain quantity; not allowed: "status"',
      status: 400,
    });
  });

  test.each([[null], [[]], [[{ quantity: 1 }]], ['{"quantity":1}'], [5], [true]])(
    'rejects non-object body %j',
    (body) => {
      expect(rejection(body)).toEqual({
        code: 'invalid_request',
        message: 'request body must be a JSON object such as {"quantity": 5}',
        status: 400,
      });
    },
  );
});
