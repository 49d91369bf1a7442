/**
 * listOrders: `GET /v1/store/orders` (docs/contract.md "Store orders"; docs/service-spec.md §1 names it;
 * experimental).
 *
 * Event: API Gateway REST proxy event, payload format 1.0, already authorized by the bearer authorizer.
 * Takes: query parameters `limit` (1-1000, default 100) and `cursor` (from a previous page's `Link`).
 * Returns 200 with a JSON array of Orders, newest first; when more follow, `Link: </v1/store/orders?limit=N&
 * cursor=...>; rel="next"` (RFC 8288). A Query on the orders table's `newestFirst` index, never a Scan.
 * Errors: 400 `invalid_request` (bad limit or cursor, another query parameter), 503 `service_unavailable`.
 * Environment: `ORDERS_TABLE_NAME`.
 */
import { operationNamed, stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { cursorAfter, parseCursor, parseLimit } from '#lib/orders/cursor.ts';
import { orderJson } from '#lib/orders/order.ts';
import { orderStore } from '#lib/orders/store.ts';
import { tables } from '#lib/tables.ts';

const store = orderStore(documentClient, requiredEnv(tables.orders.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('listOrders')).handler(async (event) => {
  const query = event.queryStringParameters ?? {};
  const limit = parseLimit(query.limit);
  const page = await store.list(limit, parseCursor(query.cursor));
  const link: Record<string, string> =
    page.next === undefined
      ? {}
      : { Link: `</${stageName}/store/orders?limit=${limit}&cursor=${cursorAfter(page.next)}>; rel="next"` };
  return jsonResponse(200, orderJson(page.orders), link);
});
