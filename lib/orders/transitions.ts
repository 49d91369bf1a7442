/**
 * updateOrder's lifecycle and its writes: docs/contract.md "Store orders". `placed` -> `approved` ->
 * `delivered`; `placed` or `approved` -> `cancelled`, which returns the order's quantity to the pet's stock in
 * the same TransactWriteItems as the status change.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, NumberValue, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { writeOnce } from '../clients/single-write.ts';
import { HttpError, invalidRequest, unknownMembers } from '../http/errors.ts';
import { changeTime, lastChangeUpdate } from '../inventory/last-change.ts';
import { listShardOf } from '../inventory/list-shard.ts';
import { maxQuantity } from '../inventory/quantity.ts';
import { type RetryPolicy, retried, TryAgain } from '../retry.ts';
import { listIndex } from '../tables.ts';
import { type Order, type OrderStatus, orderStatuses } from './order.ts';
import type { OrderStore } from './store.ts';

/** The moves allowed from each status (docs/contract.md "Store orders"). */
const nextStatuses: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['approved', 'cancelled'],
  approved: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

/**
 * Validates a parsed updateOrder body: an object whose one member is `status`, an order status.
 * @throws HttpError 400 `invalid_request` naming the problem (unknown members by name, at most five).
 */
export function parseOrderUpdate(body: unknown): OrderStatus {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('request body must be a JSON object such as {"status": "approved"}');
  }
  const unknown = unknownMembers(body, ['status']);
  if (unknown) throw invalidRequest(`request body may only contain status; not allowed: ${unknown}`);
  const { status } = body as { status?: unknown };
  if (!(orderStatuses as readonly unknown[]).includes(status)) {
    throw invalidRequest(`status must be one of ${orderStatuses.join(', ')}`);
  }
  return status as OrderStatus;
}

/** 409 `invalid_transition`: the order cannot move from `from` to `to` (docs/contract.md "Errors"). */
function invalidTransition(orderId: string, from: OrderStatus, to: OrderStatus, why = ''): HttpError {
  return new HttpError('invalid_transition', `cannot move order ${orderId} from ${from} to ${to}${why}`);
}

/**
 * Tries of one transition: an order moved by another request since the read, or a transaction that met another
 * on the same order or pet (DynamoDB cancels it), is read and decided again after a jittered pause.
 */
const transitionRetries: RetryPolicy = { attempts: 8, minPauseMs: 10, maxPauseMs: 400 };

/**
 * The status change of `order` to `to` in the orders table `ordersTable`, conditioned on its status, recording
 * when (`changedAt`) and by which API key (`keyId`, removed when none is known).
 */
function statusUpdate(
  order: Order,
  to: OrderStatus,
  ordersTable: string,
  keyId: string | undefined,
  now: Date,
) {
  const delivered = to === 'delivered';
  const set = [
    '#status = :to',
    'changedAt = :changedAt',
    ...(delivered ? ['complete = :complete'] : []),
    ...(keyId === undefined ? [] : ['keyId = :keyId']),
  ];
  return {
    TableName: ordersTable,
    Key: { orderId: NumberValue.from(order.id) },
    UpdateExpression: `SET ${set.join(', ')}${keyId === undefined ? ' REMOVE keyId' : ''}`,
    ConditionExpression: '#status = :from',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':to': to,
      ':from': order.status,
      ':changedAt': changeTime(now),
      ...(delivered ? { ':complete': true } : {}),
      ...(keyId === undefined ? {} : { ':keyId': keyId }),
    },
  };
}

/**
 * The return of `order`'s quantity to its pet's entry in `inventoryTable`, recorded as the entry's last
 * change (`order_cancelled`, the order's id, the key's id). Only when the entry exists and has room for it:
 * the stock never exceeds the largest quantity (docs/contract.md "InventoryUpdate").
 */
function restock(order: Order, inventoryTable: string, keyId: string | undefined, now: Date) {
  const change = lastChangeUpdate(
    { reason: 'order_cancelled', orderId: order.id, ...(keyId === undefined ? {} : { keyId }) },
    now,
  );
  const remove = change.remove.length > 0 ? ` REMOVE ${change.remove.join(', ')}` : '';
  return {
    TableName: inventoryTable,
    Key: { petId: NumberValue.from(order.petId) },
    UpdateExpression: `SET quantity = quantity + :quantity, #shard = :shard, ${change.set.join(', ')}${remove}`,
    ConditionExpression: 'attribute_exists(petId) AND quantity <= :room',
    ExpressionAttributeNames: { '#shard': listIndex.shardAttribute, ...change.names },
    ExpressionAttributeValues: {
      ':quantity': order.quantity,
      ':room': maxQuantity - order.quantity,
      ':shard': listShardOf(order.petId),
      ...change.values,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/**
 * updateOrder's write: reads the order (strongly consistent), answers its current status with the order
 * unchanged, refuses a move the lifecycle does not allow, else writes the move conditioned on the status just
 * read, in one TransactWriteItems: the status change alone (lib/clients/single-write.ts) or, for `cancelled`,
 * with the return of the quantity to the pet's stock and the change recorded on the entry
 * (lib/inventory/last-change.ts). The SDK's retry of a transaction that committed carries its
 * `ClientRequestToken` and is not applied again, so the move is answered as made even when another move
 * followed it (docs/architecture.md "Writes exactly once"). A condition that fails because another request
 * moved the order first, or a `TransactionConflict`, starts again from the read ({@link transitionRetries}),
 * so a cancellation restocks exactly once whatever the concurrency.
 * @returns the order as moved (or as it is, when already in `to`), or `not_found`.
 * @throws HttpError 409 `invalid_transition` naming both statuses (also when the pet has no entry or no room
 *   for the returned quantity); 503 `service_unavailable` once the tries are spent.
 */
export function orderTransition(
  client: DynamoDBDocumentClient,
  orders: Pick<OrderStore, 'get'>,
  tables: { inventory: string; orders: string },
): (orderId: string, to: OrderStatus, keyId?: string) => Promise<Order | 'not_found'> {
  /** One try: the order as moved, or {@link TryAgain} when it moved since the read or met a conflict. */
  const move = async (orderId: string, to: OrderStatus, keyId: string | undefined) => {
    const order = await orders.get(orderId);
    if (!order) return 'not_found';
    if (order.status === to) return order;
    if (!nextStatuses[order.status].includes(to)) throw invalidTransition(orderId, order.status, to);
    const now = new Date();
    const update = statusUpdate(order, to, tables.orders, keyId, now);
    const moved = { ...order, status: to, complete: to === 'delivered' ? true : order.complete };
    if (to !== 'cancelled') {
      // The order moved since the read: read it again (then it is unchanged, or the move is refused).
      if (await writeOnce(client, { Update: update })) throw new TryAgain();
      return moved;
    }
    try {
      const stock = restock(order, tables.inventory, keyId, now);
      await client.send(new TransactWriteCommand({ TransactItems: [{ Update: update }, { Update: stock }] }));
      return moved;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [orderReason, stockReason] = error.CancellationReasons ?? [];
      if (orderReason?.Code !== 'ConditionalCheckFailed' && stockReason?.Code === 'ConditionalCheckFailed') {
        const why = stockReason.Item
          ? `: returning ${order.quantity} would put more than ${maxQuantity} of petId ${order.petId} in stock`
          : `: petId ${order.petId} has no inventory entry to return the stock to`;
        throw invalidTransition(orderId, order.status, to, why);
      }
      const again = [orderReason, stockReason].some(
        (reason) => reason?.Code === 'ConditionalCheckFailed' || reason?.Code === 'TransactionConflict',
      );
      if (again) throw new TryAgain();
      throw error;
    }
  };
  return (orderId, to, keyId) =>
    retried(
      transitionRetries,
      () => move(orderId, to, keyId),
      () => new HttpError('service_unavailable', `too many changes of order ${orderId} at once; retry`),
    );
}
