/**
 * The order rules of docs/contract.md "Store orders" that need no table: placeOrder's and updateOrder's bodies
 * (lib/orders/order.ts, lib/orders/transitions.ts `parseOrderUpdate`), the orderId of a path, an Order's JSON and
 * listOrders' cursor (lib/orders/cursor.ts).
 */
import { describe, expect, test } from 'vitest';
import { HttpError } from '#lib/http/errors.ts';
import { exactIntegers } from '#lib/json-integers.ts';
import { cursorAfter, parseCursor } from '#lib/orders/cursor.ts';
import { type Order, orderJson, parseNewOrder, parseOrderId } from '#lib/orders/order.ts';
import { parseOrderUpdate } from '#lib/orders/transitions.ts';

/** The Error body `run` throws (it must throw an {@link HttpError}). */
function thrownBody(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return error.body;
    throw error;
  }
  throw new Error('nothing was thrown');
}

/** A placeOrder body as the JSON body middleware hands it over: integers judged on their source text. */
const orderBody = (text: string) => JSON.parse(text, exactIntegers);

const badShipDate = 'shipDate must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z';
const badQuantity = 'quantity must be an integer from 1 to 2147483647';

describe('parseNewOrder: a placeOrder body', () => {
  test.each([
    ['{"petId": 7, "quantity": 1}', { petId: '7', quantity: 1 }],
    [
      '{"petId": -9223372036854775808, "quantity": 2147483647}',
      { petId: '-9223372036854775808', quantity: 2147483647 },
    ],
    ['{"quantity": 3.0, "petId": 9223372036854775807}', { petId: '9223372036854775807', quantity: 3 }],
    [
      '{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:00:00Z"}',
      { petId: '7', quantity: 1, shipDate: '2026-12-01T10:00:00Z' },
    ],
    [
      '{"petId": 7, "quantity": 1, "shipDate": "0000-02-29t23:59:60.123+23:59"}',
      { petId: '7', quantity: 1, shipDate: '0000-02-29t23:59:60.123+23:59' },
    ],
    [
      '{"petId": 7, "quantity": 1, "shipDate": "2024-02-29T00:00:00z"}',
      { petId: '7', quantity: 1, shipDate: '2024-02-29T00:00:00z' },
    ],
    [
      '{"petId": 7, "quantity": 1, "shipDate": "2026-12-31T00:00:00-00:00"}',
      { petId: '7', quantity: 1, shipDate: '2026-12-31T00:00:00-00:00' },
    ],
    [
      '{"petId": 7, "quantity": 1, "shipDate": "2026-01-01T00:00:00Z"}',
      { petId: '7', quantity: 1, shipDate: '2026-01-01T00:00:00Z' },
    ],
  ])('takes %s', (text, order) => {
    expect(parseNewOrder(orderBody(text))).toStrictEqual(order);
  });

  test.each([
    ['[1]', 'request body must be a JSON object such as {"petId": 7, "quantity": 1}'],
    ['null', 'request body must be a JSON object such as {"petId": 7, "quantity": 1}'],
    ['"order"', 'request body must be a JSON object such as {"petId": 7, "quantity": 1}'],
    [
      '{"petId": 7, "quantity": 1, "id": 1, "status": "placed"}',
      'an order may only contain petId, quantity, shipDate; not allowed: "id", "status"',
    ],
    ['{"quantity": 1}', 'petId must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['{"petId": 7}', badQuantity],
    ['{"petId": 7, "quantity": 0}', badQuantity],
    ['{"petId": 7, "quantity": -1}', badQuantity],
    ['{"petId": 7, "quantity": 2147483648}', badQuantity],
    ['{"petId": 7, "quantity": 1.5}', badQuantity],
    ['{"petId": 7, "quantity": "1"}', badQuantity],
    ['{"petId": 7, "quantity": 1, "shipDate": null}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": 20261201}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": ["2026-12-01T10:00:00Z"]}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "tomorrow"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "x2026-12-01T10:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:00:00Zx"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01 10:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-00-01T10:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-13-01T10:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-00T10:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-02-30T00:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-04-31T00:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "0100-02-29T00:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T24:00:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:60:00Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:00:61Z"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:00:00+24:00"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:00:00+00:60"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:00:00+0100"}', badShipDate],
    ['{"petId": 7, "quantity": 1, "shipDate": "2026-12-01T10:00:00."}', badShipDate],
  ])('refuses %s with 400 invalid_request', (text, message) => {
    expect(thrownBody(() => parseNewOrder(orderBody(text)))).toStrictEqual({
      code: 'invalid_request',
      message,
      status: 400,
    });
  });
});

describe('parseOrderId: the orderId of a request path', () => {
  test.each([
    ['1', '1'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775807', '9223372036854775807'],
  ])('takes %s', (text, orderId) => {
    expect(parseOrderId(text)).toBe(orderId);
  });

  test.each([[undefined], ['007'], ['+7'], ['7.0'], ['9223372036854775808'], ['abc'], ['']])(
    'refuses %s with 400 invalid_request',
    (text) => {
      expect(thrownBody(() => parseOrderId(text))).toStrictEqual({
        code: 'invalid_request',
        message:
          "orderId must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal without leading zeros or '+'",
        status: 400,
      });
    },
  );
});

describe('orderJson: the exact JSON of an Order', () => {
  const placed: Order = {
    id: '9223372036854775807',
    petId: '-9007199254740993',
    quantity: 2,
    status: 'placed',
    complete: false,
  };
  const delivered: Order = {
    ...placed,
    id: '3',
    shipDate: '2026-12-01T10:00:00Z',
    status: 'delivered',
    complete: true,
  };

  test('one order: ids digit for digit, no shipDate when none was given, members in order', () => {
    expect(orderJson(placed)).toBe(
      '{"id":9223372036854775807,"petId":-9007199254740993,"quantity":2,"status":"placed","complete":false}',
    );
  });

  test('an array of orders, the shipDate where one was given', () => {
    expect(orderJson([delivered, placed])).toBe(
      '[{"id":3,"petId":-9007199254740993,"quantity":2,"shipDate":"2026-12-01T10:00:00Z","status":"delivered","complete":true},' +
        '{"id":9223372036854775807,"petId":-9007199254740993,"quantity":2,"status":"placed","complete":false}]',
    );
    expect(orderJson([])).toBe('[]');
  });
});

describe('parseOrderUpdate: an updateOrder body', () => {
  test.each(['placed', 'approved', 'delivered', 'cancelled'])('takes {"status": "%s"}', (status) => {
    expect(parseOrderUpdate({ status })).toBe(status);
  });

  test.each([
    [[], 'request body must be a JSON object such as {"status": "approved"}'],
    [null, 'request body must be a JSON object such as {"status": "approved"}'],
    ['approved', 'request body must be a JSON object such as {"status": "approved"}'],
    [
      { status: 'approved', complete: true, id: 1 },
      'request body may only contain status; not allowed: "complete", "id"',
    ],
    [{}, 'status must be one of placed, approved, delivered, cancelled'],
    [{ status: 'shipped' }, 'status must be one of placed, approved, delivered, cancelled'],
    [{ status: 'APPROVED' }, 'status must be one of placed, approved, delivered, cancelled'],
  ])('refuses %j with 400 invalid_request', (body, message) => {
    expect(thrownBody(() => parseOrderUpdate(body))).toStrictEqual({
      code: 'invalid_request',
      message,
      status: 400,
    });
  });
});

describe("listOrders' cursor", () => {
  test.each(['1', '42', '9223372036854775807', '-9223372036854775808'])(
    'the cursor after order %s is read back as that orderId',
    (orderId) => {
      expect(parseCursor(cursorAfter(orderId))).toBe(orderId);
    },
  );

  test('the cursor after order 42 is its base64url text; none given is none', () => {
    expect(cursorAfter('42')).toBe('NDI');
    expect(parseCursor(undefined)).toBeUndefined();
  });

  test.each([
    ['', 'empty'],
    ['NDI=', 'padded'],
    ['NDJ', 'not the encoding this service writes (a non-canonical last character)'],
    [Buffer.from('042').toString('base64url'), 'a leading zero'],
    [Buffer.from('4x').toString('base64url'), 'not a number'],
    [Buffer.from('9223372036854775808').toString('base64url'), 'past int64'],
    ['A'.repeat(33), 'longer than any cursor written'],
    ['NDI+', 'base64, not base64url'],
  ])('refuses %s (%s) with 400 invalid_request', (text) => {
    expect(thrownBody(() => parseCursor(text))).toStrictEqual({
      code: 'invalid_request',
      message: 'cursor is not valid: use the one of the Link header of the previous page',
      status: 400,
    });
  });
});
