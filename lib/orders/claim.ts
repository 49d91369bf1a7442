/**
 * An Idempotency-Key's claim on the order it placed, written in the order's own transaction: docs/contract.md
 * "Store orders"; docs/architecture.md "Orders exactly once".
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { heldClaim, type KeyClaim, keyClaim, claimPut as keyClaimPut } from '../idempotency/claim.ts';
import type { NewOrder } from './order.ts';

/** The prefix of a claim's `id`: apart from the Idempotency utility's records (`placeOrder#...`). */
const claimPrefix = 'placeOrderClaim#';
/** The claim's attribute holding the SHA-256 hex of the validated order (petId, quantity, shipDate). */
const digestAttribute = 'orderDigest';

/** One key's claim, as placeOrder asks for it (lib/idempotency/claim.ts). */
export type OrderClaim = KeyClaim;

/** The claim of `scopedKey` (`<scope> <Idempotency-Key>`, lib/idempotency/idempotency-key.ts) sent with `order`. */
export function orderClaim(scopedKey: string, order: NewOrder): OrderClaim {
  return keyClaim(
    claimPrefix,
    scopedKey,
    JSON.stringify([order.petId, order.quantity, order.shipDate ?? null]),
  );
}

/**
 * The transaction's Put of `claim` for the order `orderId` into `tableName`, expiring 24 hours after `now`
 * (epoch ms): lib/idempotency/claim.ts `claimPut`.
 */
export function claimPut(tableName: string, claim: OrderClaim, orderId: string, now: number) {
  return keyClaimPut(tableName, claim, digestAttribute, { orderId: NumberValue.from(orderId) }, now);
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
  const claimed = heldClaim(held, claim, digestAttribute);
  if (claimed === 'key_reused') return claimed;
  const orderId = claimed.orderId?.N;
  if (orderId === undefined) throw new Error('the refusing claim has no order');
  return orderId;
}
