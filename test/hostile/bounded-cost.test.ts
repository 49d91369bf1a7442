/**
 * Hostile bodies of up to 1 MB on every write operation (docs/contract.md "Bounded cost, clean shutdown",
 * "InventoryUpdate", "Integers in request bodies"), over HTTP to the local service: long number literals (too
 * large, fractions, `1e-100000`, `0.000...0001`), deep nesting, wide objects, member names twice in one object,
 * long strings and long member names. Each is answered 400 `invalid_request` with the exact Error body its
 * problem calls for, so the function answered: a body costing more than linear time would end in the
 * function's 10 s timeout (a 5xx) instead. No table changes. Integer-valued long forms (`5.000...000`) are
 * judged exactly and accepted.
 *
 * The expected messages are the contract's, written here from the kind of hostility generated (nothing from
 * lib/): each body has exactly one problem.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { TableId } from '#lib/tables.ts';
import {
  contractDuplicateMessage,
  contractListedNames,
  expectContractError,
  observe,
} from '#test/support/contract-oracle.ts';
import { modelledSuite } from '#test/support/inventory-model.ts';
import { sendJson } from '#test/support/raw-http.ts';

const checkedTables: TableId[] = ['inventory', 'orders', 'idempotency'];
const int64Rule = (what: string) =>
  `${what} must be an integer from -9223372036854775808 to 9223372036854775807`;

const suite = modelledSuite([{ petId: '7', quantity: 1_000_000, status: 'available' }]);

/**
 * A write operation: where its body goes, the members of a valid body around the one under test, its integer
 * member and that member's rule, its string member (a value of 1 MB breaks its rule) and its members list.
 */
interface Write {
  operation: string;
  method: string;
  path: string;
  valid: string;
  integer: string;
  integerRule: string;
  text: string;
  textRule: string;
  unknownRule: string;
}

const writes: Write[] = [
  {
    operation: 'updateInventory',
    method: 'PATCH',
    path: '/inventory/7',
    valid: '',
    integer: 'quantity',
    integerRule: 'quantity must be an integer from 0 to 2147483647',
    text: 'quantity',
    textRule: 'quantity must be an integer from 0 to 2147483647',
    unknownRule:
      'request body may only contain quantity, adjustBy, status, reorderPoint, reason; not allowed: ',
  },
  {
    operation: 'addPet',
    method: 'POST',
    path: '/pets',
    valid: '"name":"Rex",',
    integer: 'id',
    integerRule: int64Rule('id'),
    text: 'photoUrls',
    textRule: 'photoUrls must be an array of at most 20 items',
    unknownRule: 'a Pet may only contain id, name, category, photoUrls, tags, status; not allowed: ',
  },
  {
    operation: 'placeOrder',
    method: 'POST',
    path: '/store/orders',
    valid: '"petId":7,',
    integer: 'quantity',
    integerRule: 'quantity must be an integer from 1 to 2147483647',
    text: 'shipDate',
    textRule: 'shipDate must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z',
    unknownRule: 'an order may only contain petId, quantity, shipDate; not allowed: ',
  },
];

/** A valid integer for the write's integer member. */
const validInteger = '5';

/** A hostile body of about `size` bytes for `write` and the exact 400 message it calls for. */
type Hostile = (write: Write, size: number) => { body: string; message: string };

const zeros = (size: number) => '0'.repeat(size);
/**
 * Number literals of about `size` characters (at least 20 digits, so that no size makes one valid) that are not
 * integers of any rule: too large, or fractions.
 */
const longNumbers = [
  (size: number) => `1${zeros(size)}1`,
  (size: number) => `-9${'9'.repeat(size)}`,
  (size: number) => `0.${zeros(size)}1`,
  (size: number) => `5.${zeros(size)}1`,
  (size: number) => `1e-1${zeros(size)}`,
  (size: number) => `1${zeros(size)}e-${size + 1}`,
];

const hostileKinds: Record<string, Hostile> = {
  longNumber: (write, size) => ({
    body: `{${write.valid}"${write.integer}":${longNumbers[size % longNumbers.length]?.(Math.max(size, 20))}}`,
    message: write.integerRule,
  }),
  deepArray: (write, size) => {
    const depth = Math.max(1, Math.floor(size / 2));
    return {
      body: `{${write.valid}"${write.integer}":${'['.repeat(depth)}1${']'.repeat(depth)}}`,
      message: write.integerRule,
    };
  },
  deepObject: (write, size) => {
    const depth = Math.max(1, Math.floor(size / 6));
    return {
      body: `{${write.valid}"${write.integer}":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
      message: write.integerRule,
    };
  },
  wideObject: (write, size) => {
    const names = Array.from({ length: Math.max(1, Math.floor(size / 10)) }, (_, i) => `x${i}`);
    return {
      body: `{${write.valid}"${write.integer}":${validInteger},${names.map((name) => `"${name}":0`).join(',')}}`,
      message: write.unknownRule + contractListedNames(names),
    };
  },
  duplicateMember: (write, size) => {
    const names = Array.from({ length: Math.max(1, Math.floor(size / 10)) }, (_, i) => `x${i}`);
    const last = names.at(-1) as string;
    const members = [...names, last].map((name) => `"${name}":0`).join(',');
    return {
      body: `{${write.valid}"${write.integer}":${validInteger},${members}}`,
      message: contractDuplicateMessage(last),
    };
  },
  longString: (write, size) => {
    const integer = write.text === write.integer ? '' : `"${write.integer}":${validInteger},`;
    return {
      body: `{${write.valid}${integer}"${write.text}":"${'é'.repeat(size)}"}`,
      message: write.textRule,
    };
  },
  longName: (write, size) => {
    const name = `n${'ü'.repeat(size)}`;
    return {
      body: `{${write.valid}"${write.integer}":${validInteger},"${name}":1}`,
      message: write.unknownRule + contractListedNames([name]),
    };
  },
};

const tableState = () => Promise.all(checkedTables.map((table) => suite.api.tableItems(table)));

/** Sends `body` to `write` and asserts the 400 with exactly `message`, and that no table changed. */
async function expectRefused(write: Write, body: string, message: string): Promise<void> {
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 1024 + 64);
  const before = await tableState();
  const response = await sendJson(suite.client, suite.api.authorization, write.method, write.path, body);
  const context = `${write.operation} ${body.slice(0, 120)}... (${body.length} characters)`;
  expect(response.status, context).toBe(400);
  expectContractError(observe(response), 400, message);
  expect(await tableState(), context).toEqual(before);
}

describe('hostile bodies up to 1 MB, property-based', () => {
  test('every write refuses long numbers, deep nesting, wide objects, repeated names and long strings with its 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes),
        fc.constantFrom(...Object.keys(hostileKinds)),
        fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 100_000, max: 500_000 })),
        async (write, kind, size) => {
          const { body, message } = (hostileKinds[kind] as Hostile)(write, size);
          await expectRefused(write, body, message);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe.each(writes)('$operation', (write) => {
  test.each(longNumbers.map((form, index) => [index, form(100_000).slice(0, 12)]))(
    'refuses a number of 100,000 digits (form %i, %s...) with 400',
    async (index) => {
      const literal = (longNumbers[index] as (size: number) => string)(100_000);
      await expectRefused(write, `{${write.valid}"${write.integer}":${literal}}`, write.integerRule);
    },
  );

  test('refuses a member named twice, at the top, nested, or written with an escape, naming it', async () => {
    const body = (members: string) => `{${write.valid}"${write.integer}":${validInteger},${members}}`;
    await expectRefused(
      write,
      `{${write.valid}"${write.integer}":1,"${write.integer}":${validInteger}}`,
      contractDuplicateMessage(write.integer),
    );
    await expectRefused(
      write,
      body('"extra":[{"a":1},{"b":{"c":1,"d":2,"c":3}}]'),
      contractDuplicateMessage('c'),
    );
    const escaped = `\\u${write.integer.charCodeAt(0).toString(16).padStart(4, '0')}${write.integer.slice(1)}`;
    await expectRefused(write, body(`"${escaped}":${validInteger}`), contractDuplicateMessage(write.integer));
    const long = 'm'.repeat(100);
    await expectRefused(write, body(`"${long}":1,"${long}":2`), contractDuplicateMessage(long));
  });
});

describe('integer-valued long forms are judged exactly', () => {
  const five = [`5.${zeros(100_000)}`, `5${zeros(100_000)}e-100000`, `0.${zeros(100_000)}5e100001`];

  test.each(five.map((literal) => [literal.slice(0, 12), literal]))(
    'updateInventory takes %s... as the quantity 5',
    async (_shown, literal) => {
      const response = await sendJson(
        suite.client,
        suite.api.authorization,
        'PATCH',
        '/inventory/7',
        `{"quantity":${literal}}`,
      );
      expect(response.status, response.text).toBe(200);
      expect(response.text).toBe('{"petId":7,"quantity":5,"status":"available"}');
      expect((await suite.api.tableItems()).find((item) => item.petId === '7')?.quantity).toBe('5');
    },
  );

  test('addPet takes a 100,000-digit form of 9 as the id 9', async () => {
    const response = await sendJson(
      suite.client,
      suite.api.authorization,
      'POST',
      '/pets',
      `{"id":9.${zeros(100_000)},"name":"Rex"}`,
    );
    expect(response.status, response.text).toBe(201);
    expect(response.text).toBe('{"id":9,"name":"Rex","photoUrls":[],"tags":[],"status":"available"}');
  });
});
