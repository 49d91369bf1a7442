/** The orders store, order and stock decrement in one transaction: docs/contract.md "Store orders". */
import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  NumberValue,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { maxAssignedId, newOrderId } from '../assigned-ids.ts';
import { HttpError } from '../http/errors.ts';
import type { PetStatus } from '../inventory/inventory-item.ts';
import { changeTime, lastChangeUpdate } from '../inventory/last-change.ts';
import { type RetryPolicy, retried, TryAgain } from '../retry.ts';
import { tables } from '../tables.ts';
import { claimedOrderId, claimPut, type OrderClaim } from './claim.ts';
import type { NewOrder, Order, OrderStatus } from './order.ts';

/** The one value of the index partition key: every order is listed from it (see docs/implementation.md "Store orders"). */
export const listPartition = 'orders';

/** A placement refused because the entry's status is not `available`: the status it has. */
export interface PetUnavailable {
  unavailable: Exclude<PetStatus, 'available'>;
}

/**
 * The outcome of a placement: the stored order (or the one its key's claim placed before), or why nothing
 * changed: no entry, an entry that is not `available`, short stock, or the key's claim holds another order.
 */
export type PlaceResult = Order | 'no_entry' | PetUnavailable | 'insufficient_stock' | 'key_reused';

/** One page of the newest-first list: the orders, and the last one's id when more follow. */
export interface OrderPage {
  orders: Order[];
  /** The `orderId` to continue after (exclusive), or undefined on the last page. */
  next?: string;
}

/** What getOrderById and listOrders need from the orders table. */
export interface OrderStore {
  /** The order `orderId` (strongly consistent GetItem), or undefined. */
  get(orderId: string): Promise<Order | undefined>;
  /** At most `limit` orders, newest first, after the order `after` (exclusive) when given: Query on the index. */
  list(limit: number, after?: string): Promise<OrderPage>;
}

type StoredOrder = {
  orderId: NumberValue;
  petId: NumberValue;
  quantity: NumberValue;
  shipDate?: string;
  status: OrderStatus;
  complete: boolean;
};

function fromStored(item: Record<string, unknown>): Order {
  const { orderId, petId, quantity, shipDate, status, complete } = item as StoredOrder;
  return {
    id: orderId.toString(),
    petId: petId.toString(),
    quantity: Number(quantity.toString()),
    ...(shipDate === undefined ? {} : { shipDate }),
    status,
    complete,
  };
}

/**
 * Why the decrement's condition refused, from the entry's old item (`ALL_OLD`, DynamoDB's attribute values as
 * the cancellation reason carries them; absent: no entry): a status other than `available` first, then short
 * stock.
 */
function stockRefusal(item: Record<string, AttributeValue> | undefined): PlaceResult {
  if (item === undefined) return 'no_entry';
  const status = item.status?.S as PetStatus;
  return status === 'available' ? 'insufficient_stock' : { unavailable: status };
}

/**
 * Transactions tried per order: a conflict with another order of the same pet, or a taken id, is tried again
 * (a new id) after a jittered pause.
 */
const placeRetries: RetryPolicy = { attempts: 5, minPauseMs: 10, maxPauseMs: 200 };

/**
 * placeOrder's write: one TransactWriteItems that puts the key's claim when there is one (lib/orders/claim.ts,
 * into `claimsTable`), decrements the item's `quantity` only if it holds enough and its `status` is
 * `available`, recording the change `order_placed` with the order's id and the API key's id `keyId`
 * (lib/inventory/last-change.ts), and puts the order under a new id with its `changedAt` and `keyId`. A claim
 * that refuses returns the order it placed before, as placed (`key_reused` for another order); the decrement's
 * old item tells `no_entry`, then {@link PetUnavailable}, then `insufficient_stock` (docs/implementation.md
 * "Store orders"); a `TransactionConflict` or a taken id is tried again ({@link placeRetries}), then 503
 * `service_unavailable`.
 */
export function orderPlacement(
  client: DynamoDBDocumentClient,
  inventoryTable: string,
  ordersTable: string,
  claimsTable: string,
): (order: NewOrder, claim?: OrderClaim, keyId?: string) => Promise<PlaceResult> {
  return (newOrder, claim, keyId) =>
    retried(
      placeRetries,
      async () => {
        const order: Order = { id: newOrderId(), ...newOrder, status: 'placed', complete: false };
        const now = new Date();
        const byKey = keyId === undefined ? {} : { keyId };
        const change = lastChangeUpdate({ reason: 'order_placed', orderId: order.id, ...byKey }, now);
        const remove = change.remove.length > 0 ? ` REMOVE ${change.remove.join(', ')}` : '';
        // The claim goes first: its refusal is the one that counts, whatever else would refuse.
        const claimed = claim ? [{ Put: claimPut(claimsTable, claim, order.id, Date.now()) }] : [];
        try {
          await client.send(
            new TransactWriteCommand({
              TransactItems: [
                ...claimed,
                {
                  Update: {
                    TableName: inventoryTable,
                    Key: { petId: NumberValue.from(order.petId) },
                    UpdateExpression: `SET quantity = quantity - :quantity, ${change.set.join(', ')}${remove}`,
                    ConditionExpression:
                      'attribute_exists(petId) AND quantity >= :quantity AND #status = :available',
                    ExpressionAttributeNames: { ...change.names, '#status': 'status' },
                    ExpressionAttributeValues: {
                      ':quantity': order.quantity,
                      ':available': 'available' satisfies PetStatus,
                      ...change.values,
                    },
                    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                  },
                },
                {
                  Put: {
                    TableName: ordersTable,
                    Item: {
                      orderId: NumberValue.from(order.id),
                      petId: NumberValue.from(order.petId),
                      quantity: order.quantity,
                      ...(order.shipDate === undefined ? {} : { shipDate: order.shipDate }),
                      status: order.status,
                      complete: order.complete,
                      createdAt: now.toISOString(),
                      changedAt: changeTime(now),
                      ...byKey,
                      listPartition,
                    },
                    ConditionExpression: 'attribute_not_exists(orderId)',
                  },
                },
              ],
            }),
          );
          return order;
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
          const reasons = error.CancellationReasons ?? [];
          const [stock, put] = reasons.slice(claimed.length);
          if (claim && reasons[0]?.Code === 'ConditionalCheckFailed') {
            const orderId = claimedOrderId(reasons[0].Item, claim);
            return orderId === 'key_reused' ? orderId : { ...order, id: orderId };
          }
          if (stock?.Code === 'ConditionalCheckFailed') return stockRefusal(stock.Item);
          const conflict = reasons.some((reason) => reason?.Code === 'TransactionConflict');
          const idTaken = put?.Code === 'ConditionalCheckFailed';
          // DynamoDB cancels a transaction that meets another on the same item: tried again after a pause.
          if (conflict || idTaken) throw new TryAgain();
          throw error;
        }
      },
      () => new HttpError('service_unavailable', 'too many orders of this pet at once; retry'),
    );
}

/**
 * The newest-first list's two ranges of the index's sort key `orderId`, read in this order, each in descending
 * order: the ids assigned since ids fit in 2^53 - 1, then the larger ids assigned before (all of them older;
 * docs/implementation.md "Store orders").
 */
const earlyRange = 'orderId > :maxAssignedId';
const newestFirstRanges = ['orderId <= :maxAssignedId', earlyRange];

/** True when `orderId` (canonical decimal) was assigned before ids fit in 2^53 - 1: it is larger. */
function isEarlyOrderId(orderId: string): boolean {
  return BigInt(orderId) > BigInt(maxAssignedId);
}

/** The store over `client` and the orders table `ordersTable`. */
export function orderStore(client: DynamoDBDocumentClient, ordersTable: string): OrderStore {
  const [index] = tables.orders.globalIndexes;
  return {
    async get(orderId) {
      const { Item } = await client.send(
        new GetCommand({
          TableName: ordersTable,
          Key: { orderId: NumberValue.from(orderId) },
          ConsistentRead: true,
        }),
      );
      return Item && fromStored(Item);
    },

    async list(limit, after) {
      const orders: Order[] = [];
      let start: Record<string, unknown> | undefined =
        after === undefined ? undefined : { listPartition, orderId: NumberValue.from(after) };
      // A cursor after an order of the second range continues in it.
      const ranges = after !== undefined && isEarlyOrderId(after) ? [earlyRange] : newestFirstRanges;
      for (const range of ranges) {
        // One more than asked tells whether a next page exists; 1 MB pages may need several requests.
        do {
          const page = await client.send(
            new QueryCommand({
              TableName: ordersTable,
              IndexName: index.name,
              KeyConditionExpression: `${index.partitionKey.name} = :partition AND ${range}`,
              ExpressionAttributeValues: {
                ':partition': listPartition,
                ':maxAssignedId': NumberValue.from(maxAssignedId.toString()),
              },
              ScanIndexForward: false,
              Limit: limit + 1 - orders.length,
              ...(start ? { ExclusiveStartKey: start } : {}),
            }),
          );
          for (const item of page.Items ?? []) orders.push(fromStored(item));
          start = page.LastEvaluatedKey;
        } while (start && orders.length <= limit);
        if (orders.length > limit) break;
      }
      const more = orders.length > limit;
      const shown = orders.slice(0, limit);
      return more ? { orders: shown, next: shown[shown.length - 1]?.id } : { orders: shown };
    },
  };
}
