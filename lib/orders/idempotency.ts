/** placeOrder's `Idempotency-Key`, with Powertools' Idempotency utility: docs/contract.md "Store orders". */
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import type { Context } from 'aws-lambda';
import { dynamoDbClientConfig } from '../clients/dynamodb.ts';
import { type ErrorCode, HttpError, invalidRequest } from '../http/errors.ts';
import { idempotencyWindowSeconds } from './claim.ts';
import type { NewOrder, Order } from './order.ts';
import { RequestPersistenceLayer } from './request-persistence-layer.ts';

/** The request header carrying the key. */
export const idempotencyKeyHeader = 'Idempotency-Key';

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * The key of the request's `Idempotency-Key` values, or undefined when there is none.
 * @throws HttpError 400 `invalid_request` when it is sent more than once or is not 1-255 visible characters.
 */
export function parseIdempotencyKey(values: readonly string[]): string | undefined {
  if (values.length === 0) return undefined;
  const [key] = values;
  if (values.length > 1 || key === undefined || !keyPattern.test(key)) {
    throw invalidRequest(`${idempotencyKeyHeader} must be sent once, as 1 to 255 visible ASCII characters`);
  }
  return key;
}

/** A placement's refusal (404 `not_found`, 409 `pet_unavailable` or `insufficient_stock`), remembered under a key like an order. */
export interface Refusal {
  code: ErrorCode;
  message: string;
}

/** The order, or the refusal thrown as the contract's error. @throws HttpError for a refusal */
function orderOf(result: Order | Refusal): Order {
  if ('code' in result) throw new HttpError(result.code, result.message);
  return result;
}

/**
 * The Idempotency-Key `key` in the scope of the API key that sent it: `<scope> <key>`, so that two API keys'
 * equal Idempotency-Keys never meet. The scope is the authorizer's `firstKeyId` (the first key of the rotation
 * chain, functions/authorizer/handler.ts), else its `keyId`: a result cached by an authorizer older than
 * `firstKeyId` carries only the key's own id, which is the first key's for every key not made by `rotate`.
 * @throws Error when the authorizer gave neither (a wiring mistake: no request reaches placeOrder without it)
 */
export function scopedKey(authorizer: Record<string, unknown> | null | undefined, key: string): string {
  const scope = authorizer?.firstKeyId ?? authorizer?.keyId;
  if (typeof scope !== 'string' || scope === '') throw new Error('no API key id in the authorizer context');
  return `${scope} ${key}`;
}

/** The 422 of an Idempotency-Key sent before with another order (docs/contract.md "Store orders"). */
export function keyReused(): HttpError {
  return new HttpError(
    'idempotency_key_reused',
    `this ${idempotencyKeyHeader} was used with another order in the last 24 hours`,
  );
}

/**
 * What one reservation is asked: the caller's scoped key (absent: not idempotent), the validated order and the
 * caller's API key id (recorded with the change, not part of the idempotency key or the payload check).
 */
export interface Reservation {
  /** The Idempotency-Key in its API key's scope ({@link scopedKey}). */
  key?: string;
  order: NewOrder;
  /** The API key's id (lib/http/caller.ts `callerKeyId`). */
  keyId?: string;
}

/** Maps the utility's refusals to the contract's errors; an unreachable store becomes the SDK's own error. */
function contractError(error: unknown): unknown {
  if (error instanceof IdempotencyAlreadyInProgressError) {
    return new HttpError(
      'conflict',
      `a request with this ${idempotencyKeyHeader} is still running; retry later`,
    );
  }
  if (error instanceof IdempotencyValidationError) return keyReused();
  if (error instanceof IdempotencyPersistenceLayerError && error.cause instanceof Error) return error.cause;
  return error;
}

/**
 * `place` made idempotent by {@link Reservation.key} over the table `tableName` (Powertools' DynamoDB
 * persistence layer: key `id`, TTL attribute `expiration`; its records name their Lambda request, so the SDK's
 * own retry of a record's write is not taken for a concurrent repeat: request-persistence-layer.ts): a
 * concurrent repeat is 409 `conflict`, a repeat
 * answers the first result again (an order or a remembered refusal), and a result thrown is not remembered. A
 * reservation without a key calls `place` directly. `place` is given the scoped key too: the order's own
 * transaction claims it (lib/orders/claim.ts), which keeps the order single when the utility's record does not
 * (its in-progress lock expires with the invocation that died after the commit; docs/architecture.md "Orders
 * exactly once"). @returns a function of the reservation and the invocation's Lambda context (it bounds the
 * in-progress lock). Not the utility's middy middleware: in 2.35.0 its `onError` deletes the record even when
 * its own `before` refused the request, so a repeat answered 409 or 422 frees the first one's lock and a
 * further repeat reserves stock again (aws-powertools/powertools-lambda-typescript#5675, fixed by #5676,
 * unreleased). This wrapper deletes only a record it acquired, when `place` fails.
 */
export function idempotentPlacement(
  place: (order: NewOrder, key?: string, keyId?: string) => Promise<Order | Refusal>,
  tableName: string,
): (reservation: Reservation, context: Context) => Promise<Order> {
  const persistenceStore = new RequestPersistenceLayer({ tableName, clientConfig: dynamoDbClientConfig });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'order',
    expiresAfterSeconds: idempotencyWindowSeconds,
  });
  const idempotent = makeIdempotent(async ({ order, key, keyId }: Reservation) => place(order, key, keyId), {
    persistenceStore,
    config,
    keyPrefix: 'placeOrder',
  });
  return async (reservation, context) => {
    if (reservation.key === undefined) {
      return orderOf(await place(reservation.order, undefined, reservation.keyId));
    }
    config.registerLambdaContext(context);
    persistenceStore.registerRequest(context.awsRequestId);
    const result = await idempotent(reservation).catch((error: unknown) => {
      throw contractError(error);
    });
    return orderOf(result);
  };
}
