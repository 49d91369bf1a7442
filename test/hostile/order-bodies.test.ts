/**
 * Hostile placeOrder bodies and Idempotency-Key headers (docs/contract.md "Store orders", "Integers in request
 * bodies"), property-based: 300 generated requests per run against a pet with ample stock and one without an
 * entry: bodies with `petId` and `quantity` of every JSON type and number form (near the int64 and quantity
 * limits, fractions, exponents, strings), `shipDate` forms, unknown members (`id`, `status`, `__proto__`),
 * random text; and 0-2 `Idempotency-Key` headers of varied lengths and characters.
 *
 * Oracle (test/support/contract-oracle.ts `contractNewOrder`, independent of lib/): 201 exactly for a valid
 * body and key on the stocked pet when the stock suffices (the stock then drops by the quantity, each key
 * new), 409 `insufficient_stock` when it does not, 404 for a valid order of a pet without an entry, else 400
 * `invalid_request`; never a 5xx; the stock changes only by accepted
 * orders.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contractNewOrder, expectContractError, observe } from '#test/support/contract-oracle.ts';
import { startTestApi, type TestApi } from '#test/support/local-api.ts';
import { type RawClient, rawClient } from '#test/support/raw-http.ts';

let api: TestApi;
let client: RawClient;
const stocked = '7';
let stock = 2_000_000_000;

beforeAll(async () => {
  api = await startTestApi();
  client = rawClient(api.baseUrl);
  await api.inventory.putMany([{ petId: stocked, quantity: stock, status: 'available' }]);
});
afterAll(async () => {
  client?.close();
  await api?.close();
});

const integerText = fc.oneof(
  fc.constantFrom(
    '1',
    '7',
    '0',
    '-1',
    '2147483647',
    '2147483648',
    '1.0',
    '1e0',
    '10e-1',
    '1.5',
    '1e-400',
    '0.99999999999999999',
  ),
  fc.constantFrom(
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775808',
    '7.0',
    '70e-1',
    '"7"',
    'true',
    'null',
    '[]',
    '{}',
  ),
  fc.integer({ min: -5, max: 3_000_000_000 }).map(String),
);
const shipDate = fc.constantFrom(
  '"2026-12-01T10:00:00Z"',
  '"2026-02-29T00:00:00Z"',
  '"2028-02-29T23:59:60+01:00"',
  '"2026-12-01"',
  '"tomorrow"',
  '5',
  '"2026-13-01T00:00:00Z"',
);
const member = fc.oneof(
  fc.tuple(
    fc.constant('petId'),
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(stocked, '8') }, integerText),
  ),
  fc.tuple(fc.constant('quantity'), integerText),
  fc.tuple(fc.constant('shipDate'), shipDate),
  fc.tuple(
    fc.constantFrom('id', 'status', 'complete', '__proto__', 'Quantity'),
    fc.constantFrom('1', '"placed"', 'false'),
  ),
);
const body = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .uniqueArray(member, { maxLength: 4, selector: ([name]) => name })
      .map((members) => `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`),
  },
  fc.constantFrom('[]', '"x"', '{', '', '{"petId": 7, "quantity": 1,}'),
  fc.string({ maxLength: 30 }),
);
const key = fc.oneof(
  fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
  fc.constantFrom('', ' ', 'a b', 'é', 'x'.repeat(255), 'x'.repeat(256)),
);

describe('hostile placeOrder bodies and keys', () => {
  test('every generated request gets the contract answer and the stock changes only by accepted orders', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(body, fc.array(key, { maxLength: 2 }), async (text, keys) => {
        run++;
        const unique = keys.map((value, index) =>
          /^[\x21-\x7e]{1,255}$/.test(value) ? `${run}-${index}-${value}`.slice(0, 255) : value,
        );
        const headers: [string, string][] = [
          ['Authorization', api.authorization],
          ['Content-Type', 'application/json'],
          ...unique.map((value): [string, string] => ['Idempotency-Key', value]),
        ];
        const response = observe(
          await client.send({ method: 'POST', path: '/store/orders', headers, body: text }),
        );
        const order = contractNewOrder(new TextEncoder().encode(text));
        const keyValid =
          unique.length === 0 || (unique.length === 1 && /^[\x21-\x7e]{1,255}$/.test(unique[0] as string));
        const context = `${text} ${JSON.stringify(unique)} -> ${response.status} ${response.text}`;
        if (!order || !keyValid) {
          expectContractError(response, 400);
        } else if (order.petId !== stocked) {
          expectContractError(response, 404);
        } else if (order.quantity > stock) {
          expect([response.status, JSON.parse(response.text).code], context).toEqual([
            409,
            'insufficient_stock',
          ]);
        } else {
          expect(response.status, context).toBe(201);
          stock -= order.quantity;
        }
        const stored = (await api.tableItems()).find((item) => item.petId === stocked);
        expect(stored?.quantity, context).toBe(String(stock));
      }),
      { numRuns: 300 },
    );
  });
});
