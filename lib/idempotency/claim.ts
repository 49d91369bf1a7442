/**
 * An Idempotency-Key's claim, a write-once item in the idempotency table put in the same transaction as the
 * write it answers for, so that a retry after the function died between the commit and its answer is refused
 * by it, whatever others wrote since: docs/architecture.md "Orders exactly once" and "Writes exactly once".
 */
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { idempotencyWindowSeconds } from './idempotency-key.ts';

/** One key's claim, as a write asks for it. */
export interface KeyClaim {
  /** The claim's item id: the operation's prefix (`placeOrderClaim#`) and the SHA-256 hex of the scoped key. */
  id: string;
  /** SHA-256 hex of the validated request: equal requests, equal digests. */
  digest: string;
}

/** SHA-256 hex of `text` (UTF-8). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The claim of `scopedKey` (`<scope> <Idempotency-Key>`, lib/idempotency/idempotency-key.ts) under `prefix`
 * (one per operation, apart from the Idempotency utility's records), for a request whose canonical text is
 * `request`.
 */
export function keyClaim(prefix: string, scopedKey: string, request: string): KeyClaim {
  return { id: prefix + sha256Hex(scopedKey), digest: sha256Hex(request) };
}

/**
 * The transaction's Put of `claim` into `tableName` (document client form) with `attributes` (what the retry
 * answers from) and its digest in `digestAttribute`, expiring {@link idempotencyWindowSeconds} after `now`
 * (epoch ms; DynamoDB's TTL removes it later). It fails, and the whole transaction with it, while another
 * unexpired claim holds the key; the refusal carries that claim.
 */
export function claimPut(
  tableName: string,
  claim: KeyClaim,
  digestAttribute: string,
  attributes: Record<string, unknown>,
  now: number,
) {
  const nowSeconds = Math.floor(now / 1000);
  return {
    TableName: tableName,
    Item: {
      id: claim.id,
      ...attributes,
      [digestAttribute]: claim.digest,
      expiration: nowSeconds + idempotencyWindowSeconds,
    },
    ConditionExpression: 'attribute_not_exists(id) OR expiration < :now',
    ExpressionAttributeValues: { ':now': nowSeconds },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/**
 * The claim that refused the transaction (`held`, as the cancellation reason carries it: DynamoDB's attribute
 * values), when it was put for the same request (`digestAttribute` equal to `claim`'s digest); `'key_reused'`
 * when it was put for another request.
 * @throws Error when `held` is no claim (a wiring mistake)
 */
export function heldClaim(
  held: Record<string, AttributeValue> | undefined,
  claim: KeyClaim,
  digestAttribute: string,
): Record<string, AttributeValue> | 'key_reused' {
  const digest = held?.[digestAttribute]?.S;
  if (held === undefined || digest === undefined) throw new Error('the refusing claim has no digest');
  return digest === claim.digest ? held : 'key_reused';
}

/** A key's claim on a write and the idempotency table it goes in (`IDEMPOTENCY_TABLE_NAME`). */
export interface ClaimedWrite {
  tableName: string;
  claim: KeyClaim;
}

/** The claim attribute of a write that keeps no answer, only its request's digest (updateInventory, addPet). */
export const requestDigest = 'requestDigest';
