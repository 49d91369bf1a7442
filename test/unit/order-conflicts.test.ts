/**
 * placeOrder's and updateOrder's writes when DynamoDB cancels their transaction (lib/orders/store.ts
 * `orderPlacement`, lib/orders/transitions.ts `orderTransition`; docs/contract.md "Store orders",
 * docs/architecture.md "Orders exactly once"): a client that answers each TransactWriteItems as the test
 * scripts it injects the conflicts, the taken ids and the refusing claims that concurrency would bring, and
 * records each transaction it was sent.
 */
import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from 'vitest';
import { HttpError } from '#lib/http/errors.ts';
import { orderClaim } from '#lib/orders/claim.ts';
import type { Order } from '#lib/orders/order.ts';
import { orderPlacement } from '#lib/orders/store.ts';
import { orderTransition } from '#lib/orders/transitions.ts';

type Reason = { Code: string; Item?: Record<string, AttributeValue> };

/** DynamoDB's cancellation of a transaction, one reason per item. */
const cancelled = (...reasons: Reason[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: reasons,
  });

const none: Reason = { Code: 'None' };
const conflict: Reason = { Code: 'TransactionConflict' };
const failedCheck = (Item?: Record<string, AttributeValue>): Reason => ({
  Code: 'ConditionalCheckFailed',
  ...(Item && { Item }),
});

/** A client answering its n-th request with `answers[n]` (an error is thrown; the last answer repeats). */
function scriptedClient(answers: readonly (Error | undefined)[]) {
  const sent: { TransactItems: { Put?: { Item: Record<string, unknown> }; Update?: unknown }[] }[] = [];
  const client = {
    send: async (command: { input: (typeof sent)[number] }) => {
      sent.push(command.input);
      const answer = answers[Math.min(sent.length, answers.length) - 1];
      if (answer) throw answer;
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
}

/** The Error body `promise` rejects with (an {@link HttpError}). */
async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(
    () => new Error('it did not fail'),
    (thrown: unknown) => thrown,
  );
  if (error instanceof HttpError) return error.body;
  throw error;
}

const newOrder = { petId: '11', quantity: 2 };
/** The id each transaction gave its order (its Put into the orders table, the last item). */
const orderIds = (sent: ReturnType<typeof scriptedClient>['sent']) =>
  sent.map((request) => String(request.TransactItems.at(-1)?.Put?.Item.orderId));

describe('orderPlacement under cancelled transactions', () => {
  test('a conflict is tried again and the order placed', async () => {
    const { client, sent } = scriptedClient([cancelled(none, conflict), undefined]);
    const placed = await orderPlacement(client, 'inventory', 'orders', 'claims')(newOrder);
    expect(placed).toMatchObject({ petId: '11', quantity: 2, status: 'placed', complete: false });
    expect(sent).toHaveLength(2);
  });

  test('a taken id is tried again under a new id', async () => {
    const { client, sent } = scriptedClient([cancelled(none, failedCheck()), undefined]);
    const placed = await orderPlacement(client, 'inventory', 'orders', 'claims')(newOrder);
    expect(sent).toHaveLength(2);
    const [first, second] = orderIds(sent);
    expect(first).not.toBe(second);
    expect(typeof placed === 'object' && 'id' in placed ? placed.id : undefined).toBe(second);
  });

  test('conflicts on every try end in 503 service_unavailable after five tries', async () => {
    const { client, sent } = scriptedClient([cancelled(conflict, none)]);
    expect(await rejection(orderPlacement(client, 'inventory', 'orders', 'claims')(newOrder))).toStrictEqual({
      code: 'service_unavailable',
      message: 'too many orders of this pet at once; retry',
      status: 503,
    });
    expect(sent).toHaveLength(5);
  });

  test('a refusing claim of the same order answers the order it placed; of another order, key_reused', async () => {
    const claim = orderClaim('scope key-1', newOrder);
    const held = { id: { S: claim.id }, orderDigest: { S: claim.digest }, orderId: { N: '77' } };
    const same = scriptedClient([cancelled(failedCheck(held), none, none)]);
    const placed = await orderPlacement(same.client, 'inventory', 'orders', 'claims')(newOrder, claim, 'k');
    expect(placed).toMatchObject({ id: '77', petId: '11', quantity: 2, status: 'placed' });
    expect(same.sent).toHaveLength(1);
    expect(same.sent[0]?.TransactItems[0]?.Put?.Item).toMatchObject({
      id: claim.id,
      orderDigest: claim.digest,
    });
    const other = scriptedClient([
      cancelled(failedCheck({ ...held, orderDigest: { S: 'another' } }), none, none),
    ]);
    expect(await orderPlacement(other.client, 'inventory', 'orders', 'claims')(newOrder, claim)).toBe(
      'key_reused',
    );
  });

  test('a claim that refuses without an order is a wiring mistake: an Error', async () => {
    const claim = orderClaim('scope key-1', newOrder);
    const held = { id: { S: claim.id }, orderDigest: { S: claim.digest } };
    const { client } = scriptedClient([cancelled(failedCheck(held), none, none)]);
    await expect(orderPlacement(client, 'inventory', 'orders', 'claims')(newOrder, claim)).rejects.toThrow(
      new Error('the refusing claim has no order'),
    );
  });

  test('with a claim, the stock refusal is read after it: short stock is insufficient_stock', async () => {
    const claim = orderClaim('scope key-2', newOrder);
    const { client } = scriptedClient([cancelled(none, failedCheck({ status: { S: 'available' } }), none)]);
    expect(await orderPlacement(client, 'inventory', 'orders', 'claims')(newOrder, claim)).toBe(
      'insufficient_stock',
    );
  });

  test('any other cancellation or error is thrown as it is, not tried again', async () => {
    const validation = cancelled({ Code: 'ValidationError' }, none);
    const first = scriptedClient([validation]);
    await expect(orderPlacement(first.client, 'inventory', 'orders', 'claims')(newOrder)).rejects.toBe(
      validation,
    );
    expect(first.sent).toHaveLength(1);
    const failure = new Error('socket hang up');
    const second = scriptedClient([failure]);
    await expect(orderPlacement(second.client, 'inventory', 'orders', 'claims')(newOrder)).rejects.toBe(
      failure,
    );
    expect(second.sent).toHaveLength(1);
  });
});

describe('orderTransition under cancelled transactions', () => {
  const placed: Order = { id: '5', petId: '11', quantity: 2, status: 'placed', complete: false };
  /** An orders store whose reads answer `orders` in turn (the last repeats). */
  const reads = (...orders: Order[]) => {
    let count = 0;
    return { get: async () => orders[Math.min(++count, orders.length) - 1] };
  };
  const tables = { inventory: 'inventory', orders: 'orders' };

  test.each([
    ['a conflict on the order', [conflict, none]],
    ['a conflict on the stock', [none, conflict]],
  ])('a cancellation after %s is read and tried again', async (_name, reasons) => {
    const { client, sent } = scriptedClient([cancelled(...reasons), undefined]);
    const moved = await orderTransition(client, reads(placed), tables)('5', 'cancelled', 'k');
    expect(moved).toStrictEqual({ ...placed, status: 'cancelled' });
    expect(sent).toHaveLength(2);
  });

  test('an order moved since the read is read again: the move is then refused', async () => {
    const { client, sent } = scriptedClient([cancelled(failedCheck(), none)]);
    const delivered = { ...placed, status: 'delivered' as const, complete: true };
    const body = await rejection(orderTransition(client, reads(placed, delivered), tables)('5', 'cancelled'));
    expect(body).toStrictEqual({
      code: 'invalid_transition',
      message: 'cannot move order 5 from delivered to cancelled',
      status: 409,
    });
    expect(sent).toHaveLength(1);
  });

  test('the order moved and the stock refused: read again, not refused for the stock', async () => {
    const { client, sent } = scriptedClient([cancelled(failedCheck(), failedCheck()), undefined]);
    const moved = await orderTransition(client, reads(placed), tables)('5', 'cancelled');
    expect(moved).toStrictEqual({ ...placed, status: 'cancelled' });
    expect(sent).toHaveLength(2);
  });

  test('conflicts on every try end in 503 service_unavailable after eight tries', async () => {
    const { client, sent } = scriptedClient([cancelled(conflict, none)]);
    expect(await rejection(orderTransition(client, reads(placed), tables)('5', 'cancelled'))).toStrictEqual({
      code: 'service_unavailable',
      message: 'too many changes of order 5 at once; retry',
      status: 503,
    });
    expect(sent).toHaveLength(8);
  });

  test('any other cancellation or error is thrown as it is, not tried again', async () => {
    const validation = cancelled(none, { Code: 'ValidationError' });
    const first = scriptedClient([validation]);
    await expect(orderTransition(first.client, reads(placed), tables)('5', 'cancelled')).rejects.toBe(
      validation,
    );
    expect(first.sent).toHaveLength(1);
    const bare = new TransactionCanceledException({ message: 'cancelled', $metadata: {} });
    const second = scriptedClient([bare]);
    await expect(orderTransition(second.client, reads(placed), tables)('5', 'cancelled')).rejects.toBe(bare);
    const failure = new Error('socket hang up');
    const third = scriptedClient([failure]);
    await expect(orderTransition(third.client, reads(placed), tables)('5', 'cancelled')).rejects.toBe(
      failure,
    );
    expect(third.sent).toHaveLength(1);
  });
});
