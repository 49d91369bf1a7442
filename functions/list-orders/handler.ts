/** listOrders, `GET /v1/store/orders` (proxy event 1.0; experimental): docs/contract.md "Store orders". */
import { operationNamed, stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { parseLimit } from '#lib/http/page-limit.ts';
import { ownValue } from '#lib/http/request-parameters.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { cursorAfter, parseCursor } from '#lib/orders/cursor.ts';
import { orderJson } from '#lib/orders/order.ts';
import { orderStore } from '#lib/orders/store.ts';
import { tables } from '#lib/tables.ts';

const store = orderStore(documentClient, requiredEnv(tables.orders.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('listOrders')).handler(async (event) => {
  const query = event.queryStringParameters;
  const limit = parseLimit(ownValue(query, 'limit'));
  const page = await store.list(limit, parseCursor(ownValue(query, 'cursor')));
  const link: Record<string, string> =
    page.next === undefined
      ? {}
      : { Link: `</${stageName}/store/orders?limit=${limit}&cursor=${cursorAfter(page.next)}>; rel="next"` };
  return jsonResponse(200, orderJson(page.orders), link);
});
