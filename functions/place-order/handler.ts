/** placeOrder, `POST /v1/store/orders` (proxy event 1.0; experimental): docs/contract.md "Store orders". */
import { stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { keyReused, type Refusal } from '#lib/idempotency/idempotency-key.ts';
import { idempotentFunction } from '#lib/idempotency/idempotent-function.ts';
import { orderClaim } from '#lib/orders/claim.ts';
import { type NewOrder, type Order, orderJson, parseNewOrder } from '#lib/orders/order.ts';
import { orderPlacement } from '#lib/orders/store.ts';
import { tables } from '#lib/tables.ts';

const placement = orderPlacement(
  documentClient,
  requiredEnv(tables.inventory.env),
  requiredEnv(tables.orders.env),
  requiredEnv(tables.idempotency.env),
);

/**
 * Reserves the stock of `order` for the API key `keyId`, claiming the scoped Idempotency-Key `key` when there
 * is one: the order (the one the key placed before, if it did), or the contract's 404, 409 `pet_unavailable` or
 * 409 `insufficient_stock` refusal.
 * @throws HttpError 422 `idempotency_key_reused` when the key placed another order (not remembered as a result)
 */
async function place(order: NewOrder, key?: string, keyId?: string): Promise<Order | Refusal> {
  const result = await placement(order, key === undefined ? undefined : orderClaim(key, order), keyId);
  if (result === 'key_reused') throw keyReused('order');
  if (result === 'no_entry')
    return { code: 'not_found', message: `no inventory entry for petId ${order.petId}` };
  if (typeof result === 'object' && 'unavailable' in result) {
    return {
      code: 'pet_unavailable',
      message: `petId ${order.petId} is not available: its status is ${result.unavailable}`,
    };
  }
  if (result === 'insufficient_stock') {
    return {
      code: 'insufficient_stock',
      message: `fewer than ${order.quantity} of petId ${order.petId} in stock`,
    };
  }
  return result;
}

/** The Lambda handler. */
export const handler = idempotentFunction('placeOrder', {
  what: 'order',
  example: '{"petId": 7, "quantity": 1}',
  parse: parseNewOrder,
  run: place,
  respond: (placed) =>
    jsonResponse(201, orderJson(placed), { Location: `/${stageName}/store/orders/${placed.id}` }),
});
