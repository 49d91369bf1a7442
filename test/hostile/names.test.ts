/**
 * Header and query parameter names are data (docs/contract.md "Bounded cost, clean shutdown"): names that are
 * members of `Object.prototype` (`__proto__`, `constructor`, `toString`, `hasOwnProperty`, `valueOf`) sent over
 * HTTP to every operation of each family (inventory, pets, orders). An unknown header is ignored, so the answer
 * is exactly the one without it; an unknown query parameter is 400 `invalid_request` naming it, like any other
 * unknown one, and changes no table.
 */
import { describe, expect, test, vi } from 'vitest';
import type { TableId } from '#lib/tables.ts';
import { expectContractError, observe } from '#test/support/contract-oracle.ts';
import { modelledSuite } from '#test/support/inventory-model.ts';
import type { RawResponse } from '#test/support/raw-http.ts';

const prototypeNames = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const checkedTables: TableId[] = ['inventory', 'orders', 'idempotency'];

// The event path writes pet 7's history, which listInventoryHistory answers.
const suite = modelledSuite([{ petId: '7', quantity: 1_000, status: 'available' }], { events: true });

/** An operation's request: method, path (under /v1), JSON body, and the query parameters it declares. */
interface Route {
  operation: string;
  method: string;
  path: string;
  body?: () => string;
  takes: string;
}

/** The {@link Route} of `operation`: `method path`, the query parameters it `takes`, and its `body`, if any. */
const route = (
  operation: string,
  method: string,
  path: string,
  takes: string,
  body?: () => string,
): Route => ({
  operation,
  method,
  path,
  takes,
  ...(body ? { body } : {}),
});

let nextPetId = 100;
const routes: Route[] = [
  route('listInventory', 'GET', '/inventory', 'limit, cursor, status, lowStock, petIds'),
  route('getInventoryItem', 'GET', '/inventory/7', 'none'),
  route('updateInventory', 'PATCH', '/inventory/7', 'none', () => '{"quantity": 900}'),
  route('addPet', 'POST', '/pets', 'none', () => `{"id": ${nextPetId++}, "name": "Rex"}`),
  route('getPetById', 'GET', '/pets/7', 'none'),
  route('placeOrder', 'POST', '/store/orders', 'none', () => '{"petId": 7, "quantity": 1}'),
  route('listOrders', 'GET', '/store/orders', 'limit, cursor'),
  route('getOrderById', 'GET', '/store/orders/1', 'none'),
  route('listInventoryHistory', 'GET', '/inventory/7/history', 'limit, cursor'),
];

/** Sends `route` with a valid key, a JSON content type when it has a body, then `extra` headers. */
function send(route: Route, query = '', extra: readonly (readonly [string, string])[] = []) {
  const json = route.body ? ([['Content-Type', 'application/json']] as const) : [];
  return suite.client.send({
    method: route.method,
    path: `${route.path}${query}`,
    headers: [['Authorization', suite.api.authorization], ...json, ...extra],
    ...(route.body ? { body: route.body() } : {}),
  });
}

/** The answer without the request-specific parts: ids the service assigns and per-request headers. */
function comparable(response: RawResponse) {
  const { date: _date, 'x-amzn-requestid': _id, 'x-amz-apigw-id': _gw, ...headers } = response.headers;
  const location = headers.location?.replace(/[0-9]+$/, '<id>');
  return {
    status: response.status,
    headers: location === undefined ? headers : { ...headers, location },
    text: response.text.replace(/"id":(?!7,)-?[0-9]+/, '"id":<id>'),
  };
}

const tableState = () => Promise.all(checkedTables.map((table) => suite.api.tableItems(table)));

/**
 * Waits until `route` (pet 7's history) shows the last change the earlier routes made, so that its answers
 * compared below are of one history: until the newest record's `quantity.to` is the stored quantity. The
 * records are written from the change stream after the write's answer (docs/contract.md "History and
 * events": within 5 seconds); throws when they are not there within twice that.
 */
async function historySettled(route: Route): Promise<void> {
  await vi.waitFor(
    async () => {
      const stored = (await suite.api.tableItems()).find((item) => item.petId === '7')?.quantity;
      const [newest] = JSON.parse((await send(route)).text) as { quantity: { to: number } }[];
      expect(stored, "pet 7's stored quantity").toBeDefined();
      expect(String(newest?.quantity.to), `pet 7's history has no record of quantity ${stored}`).toBe(stored);
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe.each(routes)('$operation ($method $path)', (route) => {
  test('ignores headers named __proto__, constructor, toString, hasOwnProperty, valueOf (once and twice)', async () => {
    if (route.operation === 'listInventoryHistory') await historySettled(route);
    const plain = comparable(await send(route));
    expect(plain.status, plain.text).toBeLessThan(500);
    const hostile = prototypeNames.flatMap((name) => [
      [name, 'x'],
      [name, '1'],
    ]) as [string, string][];
    expect(comparable(await send(route, '', hostile))).toEqual(plain);
    for (const name of prototypeNames) {
      expect(comparable(await send(route, '', [[name, 'x']])), name).toEqual(plain);
    }
  });

  test.each(prototypeNames)(
    'answers a query parameter named %s with 400 naming it, changing nothing',
    async (name) => {
      const before = await tableState();
      const response = observe(await send(route, `?${encodeURIComponent(name)}=1&${name}=2`));
      expectContractError(
        response,
        400,
        `query parameters not allowed: ${JSON.stringify(name)} (this operation takes ${route.takes})`,
      );
      expect(await tableState()).toEqual(before);
    },
  );

  test('names every prototype-named query parameter among the unknown ones', async () => {
    const query = prototypeNames.map((name) => `${name}=1`).join('&');
    const response = observe(await send(route, `?${query}`));
    const listed = prototypeNames.map((name) => JSON.stringify(name)).join(', ');
    expectContractError(
      response,
      400,
      `query parameters not allowed: ${listed} (this operation takes ${route.takes})`,
    );
  });
});
