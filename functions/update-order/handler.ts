/** updateOrder, `PATCH /v1/store/orders/{orderId}` (proxy event 1.0; experimental): docs/contract.md "Store orders". */
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { callerKeyId } from '#lib/http/caller.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonBody } from '#lib/http/json-body.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { orderJson, parseOrderId } from '#lib/orders/order.ts';
import { orderStore } from '#lib/orders/store.ts';
import { orderTransition, parseOrderUpdate } from '#lib/orders/transitions.ts';
import { tables } from '#lib/tables.ts';

const ordersTable = requiredEnv(tables.orders.env);
const transition = orderTransition(documentClient, orderStore(documentClient, ordersTable), {
  inventory: requiredEnv(tables.inventory.env),
  orders: ordersTable,
});

/** The Lambda handler: 200 with the order as it now is; 404; 409 `invalid_transition` (thrown by the move). */
export const handler = httpFunction(operationNamed('updateOrder'))
  .use(jsonBody({ example: '{"status": "approved"}' }))
  .handler(async (event) => {
    const orderId = parseOrderId(event.pathParameters?.orderId);
    const status = parseOrderUpdate(event.body);
    const order = await transition(orderId, status, callerKeyId(event));
    if (order === 'not_found') throw notFound(`no order with id ${orderId}`);
    return jsonResponse(200, orderJson(order));
  });
