/**
 * Hostile PATCH bodies (docs/contract.md "InventoryUpdate", "Errors"), property-based: 1,700 generated bodies per
 * run, each sent over HTTP to the local service with a valid key and `Content-Type: application/json`, to an
 * existing pet or to a well-formed petId with no entry.
 *
 * Oracle: test/support/contract-oracle.ts, an independent reading of the contract (it imports nothing from
 * lib/). A body valid by the contract is answered 200 with the updated entry for an existing pet and 404
 * `not_found` otherwise; every other body 400 `invalid_request`; never anything else (no 5xx). After every
 * request the table must equal the model: a rejected request changes nothing, an accepted one only the
 * values it names, and records its reason and the key's id.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  contractDuplicateMember,
  contractDuplicateMessage,
  contractInventoryUpdate,
  expectContractError,
  observe,
} from '#test/support/contract-oracle.ts';
import { int64Inventory } from '#test/support/inventory-fixtures.ts';
import { modelledSuite } from '#test/support/inventory-model.ts';
import { sendJsonPatch } from '#test/support/raw-http.ts';

const existing = int64Inventory;
/** Well-formed petIds with no entry: a valid body for them is 404. */
const missing = ['8', '11', '-7', '9223372036854775806'];

const hostile = modelledSuite(existing);

const encoder = new TextEncoder();
const targetPet = fc.constantFrom(...existing.map((item) => item.petId), ...missing);

/** Sends `body` to `petId` and checks the response and the table against the oracle and the model. */
async function checkPatch(petId: string, body: string | Uint8Array): Promise<void> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const response = await sendJsonPatch(
    hostile.client,
    hostile.api.authorization,
    `/inventory/${petId}`,
    bytes,
  );
  const observed = observe(response);
  const update = contractInventoryUpdate(bytes);
  if (update === undefined) {
    const error = expectContractError(observed, 400);
    expectUnknownMembersNamed(bytes, error.message);
  } else {
    hostile.model.expectUpdateAnswer(observed, petId, update);
  }
  await hostile.model.expectTable(
    hostile.api,
    `after PATCH /inventory/${petId} with ${Buffer.from(bytes).toString('hex')}`,
  );
}

/**
 * docs/contract.md "InventoryUpdate": any other member is 400 and named in the message, at most five names,
 * each cut to 64 characters. Checked for object bodies with no `__proto__` or `constructor` key anywhere
 * (those are refused by the JSON parser's prototype-pollution guard, whose message names that key instead):
 * a name twice in one object is named by the duplicate rule's message alone; else
 * with five unknown members or fewer each is named; with more, the message says how many more, and its length
 * stays bounded whatever the body holds.
 */
function expectUnknownMembersNamed(bytes: Uint8Array, message: string): void {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const text = Buffer.from(bytes).toString('utf8');
  if (text.includes('__proto__') || text.includes('constructor')) return;
  // A name twice in one object is refused while parsing, before any member is looked at.
  const duplicate = contractDuplicateMember(text);
  if (duplicate !== undefined) {
    expect(message).toBe(contractDuplicateMessage(duplicate));
    return;
  }
  const unknown = Object.keys(value).filter(
    (name) => !['quantity', 'adjustBy', 'status', 'reorderPoint', 'reason'].includes(name),
  );
  expect(message.length, message).toBeLessThanOrEqual(5 * (64 * 6 + 4) + 100);
  if (unknown.length > 5) {
    expect(message.endsWith(` and ${unknown.length - 5} more`), message).toBe(true);
    return;
  }
  for (const member of unknown) {
    expect(message.includes(JSON.stringify([...member].slice(0, 64).join(''))), message).toBe(true);
  }
}

/** JSON text of an object written member by member, so any name (even `__proto__`) is sent as given. */
function objectText(members: readonly (readonly [string, unknown])[]): string {
  return `{${members.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}`;
}

/** Every JSON type and edge of the quantity rule: in range, out of range, fractions, non-numbers. */
const anyQuantity = fc.oneof(
  fc.integer({ min: 0, max: 2147483647 }),
  fc.constantFrom(0, 1, 2147483646, 2147483647, 2147483648, -1, -0, 5.0, 1.5, 2147483647.5, -2147483648),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
  fc.maxSafeInteger(),
  fc.double(),
  fc.string(),
  fc.integer({ min: 0, max: 100 }).map(String),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer({ min: 0, max: 10 }), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.integer()),
);

/** Number literals as JSON writes them: sign, integer part, fraction, exponent (RFC 8259 §6). */
const numberLiteral = fc
  .tuple(
    fc.constantFrom('', '', '-'),
    fc.oneof(fc.constantFrom('0', '1', '5', '2147483647', '2147483648'), fc.nat().map(String)),
    fc.oneof(
      fc.constant(''),
      fc.stringMatching(/^\.[0-9]{1,12}$/),
      fc.constantFrom('.0', '.00', '.5', '.0000000000000000001', '.9999999999999999999'),
    ),
    fc.oneof(fc.constant(''), fc.stringMatching(/^[eE][+-]?[0-9]{1,3}$/)),
  )
  .map((parts) => parts.join(''));

/** Literals a rounded double would take for an integer (docs/contract.md "Integers in request bodies"). */
const nearIntegerLiteral = fc.constantFrom(
  '4.9999999999999999',
  '1e-400',
  '2147483647.0000001',
  '5.000000000000000000001',
  '0.00000000000000000000001e22',
  '5000000000000000000000e-21',
);

/** Not JSON numbers at all, though some languages would read them as such. */
const notANumberLiteral = fc.constantFrom(
  '+5',
  '05',
  '.5',
  '5.',
  '0x10',
  'NaN',
  'Infinity',
  '-Infinity',
  '1_000',
  '５',
  '5e',
  '--5',
  '1e400',
);

const whitespace = fc.stringMatching(/^[ \t\n\r]{0,3}$/);

const unknownMemberName = fc.oneof(
  fc.constantFrom(
    'Status',
    'reasons',
    'petId',
    'Quantity',
    'QUANTITY',
    'quantity ',
    ' quantity',
    'quantit',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '',
  ),
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'grapheme', minLength: 60, maxLength: 200 }),
);

describe('PATCH bodies, property-based against the contract oracle', () => {
  test('answers any JSON value as a body with 200 only when it is a valid InventoryUpdate, else 400 invalid_request', async () => {
    await fc.assert(
      fc.asyncProperty(targetPet, fc.jsonValue(), async (petId, value) => {
        await checkPatch(petId, JSON.stringify(value) ?? 'null');
      }),
      { numRuns: 300 },
    );
  });

  test('accepts a quantity of every JSON type only when it is an integer from 0 to 2147483647', async () => {
    await fc.assert(
      fc.asyncProperty(targetPet, anyQuantity, async (petId, quantity) => {
        await checkPatch(petId, JSON.stringify({ quantity }));
      }),
      { numRuns: 400 },
    );
  });

  test('reads quantity number literals (fractions, exponents, -0) by their source text and rejects non-JSON numbers with 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        targetPet,
        fc.oneof({ weight: 4, arbitrary: numberLiteral }, nearIntegerLiteral, notANumberLiteral),
        whitespace,
        whitespace,
        async (petId, literal, before, after) => {
          await checkPatch(
            petId,
            `${before}{${before}"quantity"${after}:${before}${literal}${after}}${after}`,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test('rejects a body with any member besides quantity, status, reason (__proto__, case variants, long names, many) with 400 naming at most five', async () => {
    await fc.assert(
      fc.asyncProperty(
        targetPet,
        fc.option(fc.integer({ min: 0, max: 2147483647 }), { nil: undefined }),
        fc.array(fc.tuple(unknownMemberName, fc.jsonValue({ maxDepth: 2 })), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (petId, quantity, extras, quantityFirst) => {
          const members: [string, unknown][] = extras.filter(
            ([name]) => !['quantity', 'adjustBy', 'status', 'reorderPoint', 'reason'].includes(name),
          );
          if (members.length === 0) members.push(['price', 1]);
          if (quantity !== undefined) {
            if (quantityFirst) members.unshift(['quantity', quantity]);
            else members.push(['quantity', quantity]);
          }
          await checkPatch(petId, objectText(members));
        },
      ),
      { numRuns: 200 },
    );
  });

  test('accepts quantity, status or both with an optional reason only when each is valid; {"reason": ...} alone is 400', async () => {
    const member = <T>(values: fc.Arbitrary<T>) => fc.option(values, { nil: undefined });
    const status = fc.oneof(
      fc.constantFrom('available', 'pending', 'sold'),
      fc.constantFrom('Sold', 'lost', '', null, 1, ['sold']),
    );
    const reason = fc.oneof(
      fc.constantFrom('arrival', 'return', 'adjustment'),
      fc.constantFrom('order_cancelled', 'Return', '', null, 0),
    );
    const quantity = fc.oneof(fc.integer({ min: 0, max: 2147483647 }), fc.constantFrom(-1, 1.5, '3', null));
    await fc.assert(
      fc.asyncProperty(
        targetPet,
        member(quantity),
        member(status),
        member(reason),
        async (petId, quantityValue, statusValue, reasonValue) => {
          const members: [string, unknown][] = [
            ['quantity', quantityValue],
            ['status', statusValue],
            ['reason', reasonValue],
          ];
          await checkPatch(petId, objectText(members.filter(([, value]) => value !== undefined)));
        },
      ),
      { numRuns: 200 },
    );
  });

  test('rejects deeply nested bodies and quantities with 400, without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        targetPet,
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom('[', '{"a":'),
        fc.boolean(),
        async (petId, depth, opener, inQuantity) => {
          const closer = opener === '[' ? ']' : '}';
          const nested = `${opener.repeat(depth)}1${closer.repeat(depth)}`;
          await checkPatch(petId, inQuantity ? `{"quantity":${nested}}` : nested);
        },
      ),
      { numRuns: 50 },
    );
  });

  test('rejects bodies that are not UTF-8 JSON (random bytes, invalid UTF-8, truncated or corrupted JSON) with 400', async () => {
    const valid = encoder.encode('{"quantity": 12}');
    const corrupted = fc
      .tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0x80, max: 0xff }), fc.boolean())
      .map(([at, byte, replace]) => {
        const bytes = Array.from(valid);
        bytes.splice(at, replace ? 1 : 0, byte);
        return Uint8Array.from(bytes);
      });
    const truncated = fc.nat({ max: valid.length - 1 }).map((length) => valid.slice(0, length));
    const bytes = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 64 }),
      corrupted,
      truncated,
      fc.constantFrom(
        Uint8Array.from([0xef, 0xbb, 0xbf, ...valid]),
        Uint8Array.from([0xc0, 0xaf]),
        Uint8Array.from([0xed, 0xa0, 0x80]),
        encoder.encode('quantity=12'),
        encoder.encode('<quantity>12</quantity>'),
        encoder.encode(' '),
      ),
    );
    await fc.assert(
      fc.asyncProperty(targetPet, bytes, async (petId, body) => {
        await checkPatch(petId, body);
      }),
      { numRuns: 250 },
    );
  });
});

describe('body size limit (Lambda 6 MB invocation payload, API Gateway 10 MB; docs/contract.md 413)', () => {
  const maxBytes = 10 * 1024 * 1024;
  /** A body that keeps the invocation event (body, headers, context) under Lambda's 6 MB. */
  const underLambdaLimit = 6 * 1024 * 1024 - 16 * 1024;
  /** `{"quantity":<n>` padded with spaces to `size` bytes, then `}`: valid JSON of exactly that size. */
  const paddedBody = (quantity: number, size: number) => {
    const head = `{"quantity":${quantity}`;
    return `${head}${' '.repeat(size - head.length - 1)}}`;
  };

  test('accepts a valid body whose invocation payload stays under 6 MB with 200', async () => {
    const body = paddedBody(99, underLambdaLimit);
    await checkPatch('7', body);
    expect(hostile.model.get('7')?.quantity).toBe(99);
  });

  test.each([
    ['a valid body of exactly 10 MB (over the 6 MB invocation payload)', 97, maxBytes],
    ['a body of 10 MB + 1 byte', 98, maxBytes + 1],
  ])(
    'rejects %s with 413 payload_too_large and leaves the table unchanged',
    async (_name, quantity, size) => {
      const body = paddedBody(quantity, size);
      expect(Buffer.byteLength(body)).toBe(size);
      const response = await sendJsonPatch(hostile.client, hostile.api.authorization, '/inventory/7', body);
      expectContractError(
        observe(response),
        413,
        'request too large: at most 6 MB of body and 10,240 bytes of headers',
      );
      await hostile.model.expectTable(hostile.api);
    },
  );
});
