/** getOrderById, `GET /v1/store/orders/{orderId}` (proxy event 1.0): docs/contract.md "Store orders". */
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { orderJson, parseOrderId } from '#lib/orders/order.ts';
import { orderStore } from '#lib/orders/store.ts';
import { tables } from '#lib/tables.ts';

const store = orderStore(documentClient, requiredEnv(tables.orders.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('getOrderById')).handler(async (event) => {
  const orderId = parseOrderId(event.pathParameters?.orderId);
  const order = await store.get(orderId);
  if (!order) throw notFound(`no order with id ${orderId}`);
  return jsonResponse(200, orderJson(order));
});
