/**
 * An Idempotency-Key's claim on the order it placed, written in the order's own transaction: docs/contract.md
 * "Store orders"; docs/architecture.md "Orders exactly once".
 */
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { idempotencyWindowSeconds } from '../idempotency/idempotency-key.ts';
import type { NewOrder } from './order.ts';

/** The prefix of a claim's `id`: apart from the Idempotency utility's records (`placeOrder#...`). */
const claimPrefix = 'placeOrderClaim#';

/** One key's claim, as placeOrder asks for it. */
export interface OrderClaim {
  /** The claim's item id in the idempotency table: the prefix and the SHA-256 hex of the scoped key. */
  id: string;
  /** SHA-256 hex of the validated order (petId, quantity, shipDate): equal orders, equal digests. */
  orderDigest: string;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The claim of `scopedKey` (`<scope> <Idempotency-Key>`, lib/idempotency/idempotency-key.ts) sent with `order`. */
export function orderClaim(scopedKey: string, order: NewOrder): OrderClaim {
  return {
    id: claimPrefix + sha256Hex(scopedKey),
    orderDigest: sha256Hex(JSON.stringify([order.petId, order.quantity, order.shipDate ?? null])),
  };
}

/**
 * The transaction's Put of `claim` for the order `orderId` into `tableName` (document client form), expiring
 * {@link idempotencyWindowSeconds} after `now` (epoch ms; DynamoDB's TTL removes it later). It fails, and the
 * whole transaction with it, while another unexpired claim holds the key; the refusal carries that claim.
 */
export function claimPut(tableName: string, claim: OrderClaim, orderId: string, now: number) {
  const nowSeconds = Math.floor(now / 1000);
  return {
    TableName: tableName,
    Item: {
      id: claim.id,
      orderId: NumberValue.from(orderId),
      orderDigest: claim.orderDigest,
      expiration: nowSeconds + idempotencyWindowSeconds,
    },
    ConditionExpression: 'attribute_not_exists(id) OR expiration < :now',
    ExpressionAttributeValues: { ':now': nowSeconds },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/**
 * The id of the order `claim`'s key placed, read from the claim that refused the transaction (`held`, as the
 * cancellation reason carries it: DynamoDB's attribute values, which the SDK leaves unconverted in errors), or
 * `'key_reused'` when that order was another one. @throws Error when `held` is not a claim (a wiring mistake)
 */
export function claimedOrderId(
  held: Record<string, AttributeValue> | undefined,
  claim: OrderClaim,
): string | 'key_reused' {
  const orderId = held?.orderId?.N;
  const orderDigest = held?.orderDigest?.S;
  if (orderId === undefined || orderDigest === undefined) throw new Error('the refusing claim has no order');
  return orderDigest === claim.orderDigest ? orderId : 'key_reused';
}
