/**
 * listInventory's query (docs/contract.md "Inventory semantics"): `limit` 1 to 1000, `status`, `lowStock=true`,
 * a cursor that continues only the list it began, and `petIds` (1 to 100 distinct int64, alone); each refusal
 * a 400 naming its problem.
 */
import { describe, expect, test } from 'vitest';
import { encodeCursor, parseListQuery } from '#lib/inventory/list-query.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

/** The 400 `invalid_request` body with `message`. */
const invalid = (message: string) => ({ code: 'invalid_request', message, status: 400 });

/** The query of single-valued parameters `parameters`. */
const query = (parameters: Record<string, string>) =>
  Object.fromEntries(Object.entries(parameters).map(([name, value]) => [name, [value]]));

const refusal = (parameters: Record<string, string>) =>
  thrownErrorBody(() => parseListQuery(query(parameters)));

const badCursor = invalid(
  "cursor is not valid: pass the cursor of the previous page's Link header unchanged",
);

describe('parseListQuery', () => {
  test('no parameter is the whole list', () => {
    expect(parseListQuery(null)).toStrictEqual({});
    expect(parseListQuery({})).toStrictEqual({});
  });

  test('takes limit from 1 to 1000, a status and lowStock=true', () => {
    expect(parseListQuery(query({ limit: '1' }))).toStrictEqual({ limit: 1 });
    expect(parseListQuery(query({ limit: '1000', status: 'sold', lowStock: 'true' }))).toStrictEqual({
      limit: 1000,
      status: 'sold',
      lowStock: true,
    });
  });

  test.each(['0', '1001', '9999', '01', '+5', '5.0', '1e2', '', ' 5', '10000'])(
    'refuses limit=%j',
    (limit) => {
      expect(refusal({ limit })).toStrictEqual(invalid('limit must be an integer from 1 to 1000'));
    },
  );

  test.each(['lost', '', 'Sold'])('refuses status=%j', (status) => {
    expect(refusal({ status })).toStrictEqual(invalid('status must be one of available, pending, sold'));
  });

  test.each(['false', '', 'TRUE', '1'])('refuses lowStock=%j', (lowStock) => {
    expect(refusal({ lowStock })).toStrictEqual(invalid('lowStock must be true'));
  });

  test('a cursor continues after its petId under the filters it was issued for', () => {
    expect(parseListQuery(query({ cursor: encodeCursor('-9223372036854775808', {}) }))).toStrictEqual({
      after: '-9223372036854775808',
    });
    const cursor = encodeCursor('9223372036854775807', { status: 'pending', lowStock: true });
    expect(parseListQuery(query({ limit: '2', status: 'pending', lowStock: 'true', cursor }))).toStrictEqual({
      limit: 2,
      status: 'pending',
      lowStock: true,
      after: '9223372036854775807',
    });
  });

  test('a cursor used with another lowStock or status filter is 400', () => {
    const lowStockMessage = invalid(
      'cursor was issued for another lowStock filter: keep the lowStock of the first page',
    );
    const statusMessage = invalid(
      'cursor was issued for another status filter: keep the status of the first page',
    );
    expect(refusal({ lowStock: 'true', cursor: encodeCursor('5', {}) })).toStrictEqual(lowStockMessage);
    expect(refusal({ cursor: encodeCursor('5', { lowStock: true }) })).toStrictEqual(lowStockMessage);
    expect(refusal({ cursor: encodeCursor('5', { status: 'sold' }) })).toStrictEqual(statusMessage);
  });

  test('a cursor that was not issued as it is is 400', () => {
    const cursor = encodeCursor('5', {});
    const [payload, mac] = cursor.split('.') as [string, string];
    // The MAC's last base64url character carries 2 of its bits and 4 spare ones: this one decodes to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const spare = alphabet[alphabet.indexOf(mac.at(-1) as string) ^ 1] as string;
    const foreignPayload = encodeCursor('6', {}).split('.')[0] as string;
    for (const bad of [
      `${payload}.${mac.slice(0, -1)}${spare}`,
      `${foreignPayload}.${mac}`,
      '',
      '.',
      payload,
      `${payload}.`,
      `.${mac}`,
      `${cursor}.x`,
      `${payload}.${mac.slice(0, -1)}`,
      `${payload}.${mac}A`,
      `${payload}=.${mac}`,
      `${payload.slice(1)}.${mac}`,
      encodeCursor('05', {}),
      encodeCursor('9223372036854775808', {}),
    ]) {
      expect(refusal({ cursor: bad }), bad).toStrictEqual(badCursor);
    }
  });

  test('petIds alone names 1 to 100 distinct ids, in the order given, each canonical', () => {
    expect(parseListQuery(query({ petIds: '5' }))).toStrictEqual({ petIds: ['5'] });
    expect(parseListQuery(query({ petIds: '9223372036854775807,-0,-9223372036854775808' }))).toStrictEqual({
      petIds: ['9223372036854775807', '0', '-9223372036854775808'],
    });
    const hundred = Array.from({ length: 100 }, (_, index) => String(index));
    expect(parseListQuery(query({ petIds: hundred.join(',') }))).toStrictEqual({ petIds: hundred });
  });

  test('refuses petIds of more than 100 ids, a bad or repeated id, or with another parameter', () => {
    const ids = Array.from({ length: 101 }, (_, index) => String(index)).join(',');
    expect(refusal({ petIds: ids })).toStrictEqual(invalid('petIds must name 1 to 100 ids; it names 101'));
    const badId = invalid(
      'each id of petIds must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal and separated by commas',
    );
    for (const petIds of ['', '5,', '5,,6', '05', 'x', '9223372036854775808']) {
      expect(refusal({ petIds }), petIds).toStrictEqual(badId);
    }
    expect(refusal({ petIds: '5,6,0,-0' })).toStrictEqual(invalid('petIds names 0 twice'));
    expect(refusal({ petIds: '5', limit: '2' })).toStrictEqual(
      invalid('petIds cannot be combined with other query parameters'),
    );
  });

  test('refuses a parameter given twice', () => {
    expect(thrownErrorBody(() => parseListQuery({ status: ['sold', 'sold'] }))).toStrictEqual(
      invalid('query parameter status must be given at most once'),
    );
  });
});
