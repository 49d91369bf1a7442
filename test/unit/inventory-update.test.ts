import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseInventoryUpdate } from '#lib/inventory/inventory-update.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

/** The Error body thrown by parsing `body`, or undefined when it parses. */
const rejection = (body: unknown) => thrownErrorBody(() => parseInventoryUpdate(body));

const quantityRule = {
  code: 'invalid_request',
  message: 'quantity must be an integer from 0 to 2147483647',
  status: 400,
};

describe('InventoryUpdate (docs/contract.md "InventoryUpdate")', () => {
  test('accepts every integer quantity from 0 to 2147483647', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2147483647 }), (quantity) => {
        expect(parseInventoryUpdate({ quantity })).toEqual({ quantity, reason: 'adjustment' });
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
    expect(parseInventoryUpdate(JSON.parse('{"quantity": 5.0}'))).toEqual({
      quantity: 5,
      reason: 'adjustment',
    });
  });

  test.each([[{}], [{ reason: 'return' }], [{ reason: 'adjustment' }]])(
    'rejects %j, a body with neither quantity nor status',
    (body) => {
      expect(rejection(body)).toEqual({
        code: 'invalid_request',
        message: 'request body must contain at least one of quantity, adjustBy, status, reorderPoint',
        status: 400,
      });
    },
  );

  test.each([
    [{ status: 'sold' }, { status: 'sold', reason: 'adjustment' }],
    [
      { status: 'available', reason: 'return' },
      { status: 'available', reason: 'return' },
    ],
    [
      { quantity: 4, status: 'pending', reason: 'arrival' },
      { quantity: 4, status: 'pending', reason: 'arrival' },
    ],
    [
      { quantity: 0, reason: 'adjustment' },
      { quantity: 0, reason: 'adjustment' },
    ],
  ])('accepts %j as %j', (body, update) => {
    expect(parseInventoryUpdate(body)).toEqual(update);
  });

  test.each([['lost'], ['Sold'], [''], [null], [1], [['sold']]])('rejects status %j', (status) => {
    expect(rejection({ quantity: 1, status })).toEqual({
      code: 'invalid_request',
      message: 'status must be one of available, pending, sold',
      status: 400,
    });
  });

  test.each([['theft'], ['Arrival'], ['order_cancelled'], [null], [0]])('rejects reason %j', (reason) => {
    expect(rejection({ status: 'sold', reason })).toEqual({
      code: 'invalid_request',
      message: 'reason must be one of arrival, return, adjustment, sale, loss',
      status: 400,
    });
  });

  test('rejects any other member and names it', () => {
    expect(rejection({ quantity: 1, status: 'sold', price: 3 })).toEqual({
      code: 'invalid_request',
      message:
        'request body may only contain quantity, adjustBy, status, reorderPoint, reason; not allowed: "price"',
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

  test.each([
    [{ reorderPoint: 0 }, { reorderPoint: 0, reason: 'adjustment' }],
    [{ reorderPoint: 2147483647 }, { reorderPoint: 2147483647, reason: 'adjustment' }],
    [{ reorderPoint: null }, { reorderPoint: null, reason: 'adjustment' }],
    [
      { quantity: 3, reorderPoint: 5, reason: 'sale' },
      { quantity: 3, reorderPoint: 5, reason: 'sale' },
    ],
    [
      { status: 'sold', reason: 'loss' },
      { status: 'sold', reason: 'loss' },
    ],
  ])('accepts the reorder point and the reasons sale and loss: %j as %j', (body, update) => {
    expect(parseInventoryUpdate(body)).toEqual(update);
  });

  test.each([[-1], [2147483648], [1.5], ['5'], [true], [[5]], [{}]])(
    'rejects reorderPoint %j with 400 invalid_request',
    (reorderPoint) => {
      expect(rejection({ reorderPoint })).toEqual({
        code: 'invalid_request',
        message: 'reorderPoint must be an integer from 0 to 2147483647, or null to clear it',
        status: 400,
      });
    },
  );

  test.each([
    [
      { adjustBy: -1, reason: 'sale' },
      { adjustBy: -1, reason: 'sale' },
    ],
    [{ adjustBy: 2147483647 }, { adjustBy: 2147483647, reason: 'adjustment' }],
    [
      { adjustBy: -2147483647, status: 'sold' },
      { adjustBy: -2147483647, status: 'sold', reason: 'adjustment' },
    ],
  ])('accepts the adjustment %j as %j', (body, update) => {
    expect(parseInventoryUpdate(body)).toEqual(update);
  });

  test.each([[0], [-2147483648], [2147483648], [1.5], ['5'], [null], [true]])(
    'rejects adjustBy %j with 400 invalid_request',
    (adjustBy) => {
      expect(rejection({ adjustBy })).toEqual({
        code: 'invalid_request',
        message: 'adjustBy must be an integer from -2147483647 to 2147483647, not 0',
        status: 400,
      });
    },
  );

  test('rejects quantity with adjustBy: set the stock or adjust it, never both', () => {
    expect(rejection({ quantity: 5, adjustBy: -1 })).toEqual({
      code: 'invalid_request',
      message: 'request body may contain quantity or adjustBy, not both: set the stock or adjust it',
      status: 400,
    });
  });
});
