/**
 * Hostile placeOrder bodies and Idempotency-Key headers (docs/contract.md "Store orders", "Integers in request
 * bodies"), property-based: 300 generated requests per run against a pet with ample stock, a `pending` one with
 * ample stock, a `sold` one without stock and one without an entry: bodies with `petId` and `quantity` of every JSON type and number form (near the int64 and quantity
 * limits, fractions, exponents, strings), `shipDate` forms, unknown members (`id`, `status`, `__proto__`),
 * random text; and 0-2 `Idempotency-Key` headers: empty, 255 and 256 characters, spaces, invisible characters.
 *
 * Oracle (test/support/contract-oracle.ts `contractNewOrder`, `isContractIdempotencyKey`, independent of
 * lib/): 201 exactly for a valid body and key on the stocked pet when the stock suffices, with the exact Order
 * and `Location` (the stock then drops by the quantity, one order item and, with a key, one idempotency record
 * appear; each key new), 409 `insufficient_stock` with its exact message when it does not, 409
 * `pet_unavailable` for the `pending` and the `sold` pet, 404 with its exact message for a valid order of a pet
 * without an entry (`contractPlacementRefusal`), else 400 `invalid_request` with the message of one of
 * the request's problems; never a 5xx. The inventory, orders and idempotency tables are compared after every
 * request: a refused request changes none of them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type ContractEntry,
  contractNewOrder,
  contractPlacementRefusal,
  expectContractError,
  isContractAssignedId,
  isContractIdempotencyKey,
  observe,
} from '#test/support/contract-oracle.ts';
import { jsonObjectOf } from '#test/support/json-arbitraries.ts';
import { type RawClient, rawClient, sendJson } from '#test/support/raw-http.ts';
import { changeTimeWithin } from '#test/support/raw-tables.ts';
import { startTestApi, storedEntry, type TestApi } from '#test/support/test-api.ts';

let api: TestApi;
let client: RawClient;
const stocked = '7';
let stock = 2_000_000_000;
/** Entries that take no order whatever their stock (docs/contract.md "Store orders"). */
const unavailable: Record<string, ContractEntry & { status: 'pending' | 'sold' }> = {
  '5': { quantity: 2_000_000_000, status: 'pending' },
  '6': { quantity: 0, status: 'sold' },
};
const keyMessage = 'Idempotency-Key must be sent once, as 1 to 255 visible ASCII characters';

beforeAll(async () => {
  api = await startTestApi();
  client = rawClient(api.baseUrl);
  await api.inventory.putMany([
    { petId: stocked, quantity: stock, status: 'available' },
    ...Object.entries(unavailable).map(([petId, entry]) => ({ petId, ...entry })),
  ]);
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
  '"0000-02-29T00:00:00Z"',
  '"0100-02-29T00:00:00Z"',
  '"2000-02-29T12:00:00Z"',
  '"2026-12-01"',
  '"tomorrow"',
  '5',
  '"2026-13-01T00:00:00Z"',
);
const member = fc.oneof(
  fc.tuple(
    fc.constant('petId'),
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(stocked, '8', ...Object.keys(unavailable)) },
      integerText,
    ),
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
    arbitrary: jsonObjectOf(member, 4),
  },
  fc.constantFrom('[]', '"x"', '{', '', '{"petId": 7, "quantity": 1,}'),
  fc.string({ maxLength: 30 }),
);
/**
 * `Idempotency-Key` values: visible ASCII of varied lengths, and the edges of the rule: empty, 255 and 256
 * characters, spaces, whitespace HTTP strips, and invisible characters as their UTF-8 bytes on the wire
 * (zero-width space, no-break space, soft hyphen, byte-order mark: never visible ASCII).
 */
const key = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,40}$/) },
  fc.constantFrom('', ' ', 'a b', 'x'.repeat(255), 'x'.repeat(256), ' \tpadded\t ', '\t'),
  fc
    .tuple(
      fc.stringMatching(/^[\x21-\x7e]{0,8}$/),
      fc.constantFrom('\u200b', '\u00a0', '\u00ad', '\ufeff', '\u2060', 'é'),
      fc.stringMatching(/^[\x21-\x7e]{0,8}$/),
    )
    .map(([before, invisible, after]) => Buffer.from(before + invisible + after, 'utf8').toString('latin1')),
);

/** Every table the order path touches, exactly as stored. */
async function tableState() {
  const [inventory, orders, idempotency] = await Promise.all([
    api.tableItems('inventory'),
    api.tableItems('orders'),
    api.tableItems('idempotency'),
  ]);
  return { inventory, orders, idempotency };
}

describe('hostile placeOrder bodies and keys', () => {
  test('every generated request gets the contract answer and exact body; only an accepted order changes the tables', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(body, fc.array(key, { maxLength: 2 }), async (text, keys) => {
        run++;
        // A fresh key each run (a valid one prefixed by the run), so no request repeats an earlier one.
        const sent = keys.map((value, index) => {
          const [, lead = '', inner = '', trail = ''] = /^([ \t]*)(.*?)([ \t]*)$/s.exec(value) ?? [];
          return /^[\x21-\x7e]{1,255}$/.test(inner)
            ? `${lead}${`${run}-${index}-${inner}`.slice(0, 255)}${trail}`
            : value;
        });
        const before = await tableState();
        const keyLines = sent.map((value) => ['Idempotency-Key', value] as const);
        const response = observe(
          await sendJson(client, api.authorization, 'POST', '/store/orders', text, keyLines),
        );
        const after = await tableState();
        const verdict = contractNewOrder(new TextEncoder().encode(text));
        const context = `${text} ${JSON.stringify(sent)} -> ${response.status} ${response.text}`;
        const keyValid = isContractIdempotencyKey(sent);
        if ('problems' in verdict || !keyValid) {
          const { message } = expectContractError(response, 400);
          const problems = [
            ...('problems' in verdict ? verdict.problems : []),
            ...(keyValid ? [] : [keyMessage]),
          ];
          expect(problems, context).toContain(message);
          expect(after, context).toEqual(before);
          return;
        }
        const { order } = verdict;
        // A refusal under a key is remembered like an order (lib/idempotency/idempotency-key.ts): one record.
        const refusedState = () => {
          expect([after.inventory, after.orders], context).toEqual([before.inventory, before.orders]);
          expect(after.idempotency.length - before.idempotency.length, context).toBe(sent.length);
        };
        const entry =
          order.petId === stocked ? { quantity: stock, status: 'available' } : unavailable[order.petId];
        const refusal = contractPlacementRefusal(entry, order);
        if (refusal !== undefined) {
          expect(response.status, context).toBe(refusal.status);
          expect(response.contentType).toBe('application/json');
          expect(JSON.parse(response.text), context).toEqual(refusal);
          refusedState();
          return;
        }
        expect(response.status, context).toBe(201);
        expect(response.contentType).toBe('application/json');
        const id = /^\{"id":([1-9][0-9]*),/.exec(response.text)?.[1] as string;
        expect(isContractAssignedId(id), context).toBe(true);
        const shipDate = order.shipDate === undefined ? '' : `,"shipDate":${JSON.stringify(order.shipDate)}`;
        expect(response.text, context).toBe(
          `{"id":${id},"petId":${stocked},"quantity":${order.quantity}${shipDate},"status":"placed","complete":false}`,
        );
        expect(response.headers.location).toBe(`/v1/store/orders/${id}`);
        stock -= order.quantity;
        // The stocked entry records the order as its last change (docs/architecture.md "Data layout").
        expect(after.inventory, context).toEqual(
          before.inventory.map((item) =>
            item.petId === stocked
              ? storedEntry(stocked, stock, item.status as string, {
                  reason: 'order_placed',
                  orderId: id,
                  keyId: api.keyId,
                  changedAt: changeTimeWithin(response.window),
                })
              : item,
          ),
        );
        const added = after.orders.filter(
          (item) => !before.orders.some((old) => old.orderId === item.orderId),
        );
        expect(added, context).toHaveLength(1);
        expect(added[0], context).toMatchObject({
          orderId: id,
          petId: stocked,
          quantity: String(order.quantity),
          status: 'placed',
          keyId: api.keyId,
          changedAt: changeTimeWithin(response.window),
        });
        expect(after.orders.filter((item) => item !== added[0])).toEqual(before.orders);
        // A keyed order leaves two items in the idempotency table, the utility's record and the claim written in
        // the order's transaction (docs/architecture.md "Orders exactly once"); an order without a key none.
        expect(after.idempotency.length - before.idempotency.length, context).toBe(2 * sent.length);
      }),
      { numRuns: 300 },
    );
  });
});
