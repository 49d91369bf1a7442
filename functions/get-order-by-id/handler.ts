/**
 * getOrderById: `GET /v1/store/orders/{orderId}` (docs/contract.md "Store orders"; experimental).
 *
 * Event: API Gateway REST proxy event, payload format 1.0, already authorized by the bearer authorizer.
 * Takes: path parameter `orderId` (int64). Returns 200 with the Order.
 * Errors: 400 `invalid_request` (bad orderId), 404 `not_found` (no such order), 503 `service_unavailable`.
 * One DynamoDB request: a strongly consistent GetItem.
 * Environment: `ORDERS_TABLE_NAME`.
 */
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
