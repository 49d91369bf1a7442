/**
 * The `Idempotency-Key` of placeOrder, batchUpdateInventory, updateInventory and addPet, with Powertools'
 * Idempotency utility: docs/contract.md "Store orders" (the rules), "Inventory semantics" and "Pets".
 */
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { dynamoDbClientConfig } from '../clients/dynamodb.ts';
import { callerKeyId } from '../http/caller.ts';
import { type ErrorCode, HttpError, invalidRequest } from '../http/errors.ts';
import { headerValues } from '../http/headers.ts';
import { RequestPersistenceLayer } from './request-persistence-layer.ts';

/** The request header carrying the key. */
export const idempotencyKeyHeader = 'Idempotency-Key';

/** How long a key keeps its first answer, in seconds (docs/contract.md "Store orders": 24 hours). */
export const idempotencyWindowSeconds = 24 * 60 * 60;

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

/**
 * A refusal decided by the tables (placeOrder's 404 and 409s, the batch's 404 and 412), remembered under a key
 * like a result.
 */
export interface Refusal {
  code: ErrorCode;
  message: string;
}

/**
 * The header marking an answer repeated for an Idempotency-Key, errors included (Stripe's): docs/contract.md
 * "Store orders". A first answer never carries it.
 */
export const replayedHeaders: Readonly<Record<string, string>> = { 'Idempotent-Replayed': 'true' };

/** A request's result and whether it is the answer of an earlier request with the same key, repeated. */
export interface Answered<Result> {
  result: Result;
  replayed: boolean;
}

/**
 * The result, or the refusal thrown as the contract's error (with {@link replayedHeaders} when `replayed`).
 * @throws HttpError for a refusal
 */
function resultOf<Result extends object>(result: Result | Refusal, replayed: boolean): Answered<Result> {
  if ('code' in result) throw new HttpError(result.code, result.message, replayed ? replayedHeaders : {});
  return { result, replayed };
}

/**
 * The Idempotency-Key `key` in the scope of the API key that sent it: `<scope> <key>`, so that two API keys'
 * equal Idempotency-Keys never meet. The scope is the authorizer's `firstKeyId` (the first key of the rotation
 * chain, functions/authorizer/handler.ts), else its `keyId`: a result cached by an authorizer older than
 * `firstKeyId` carries only the key's own id, which is the first key's for every key not made by `rotate`.
 * @throws Error when the authorizer gave neither (a wiring mistake: no request reaches a function without it)
 */
export function scopedKey(authorizer: Record<string, unknown> | null | undefined, key: string): string {
  const scope = authorizer?.firstKeyId ?? authorizer?.keyId;
  if (typeof scope !== 'string' || scope === '') throw new Error('no API key id in the authorizer context');
  return `${scope} ${key}`;
}

/** The 422 of an Idempotency-Key sent before with another `what` (`order`, `batch`): docs/contract.md "Store orders". */
export function keyReused(what: string): HttpError {
  return new HttpError(
    'idempotency_key_reused',
    `this ${idempotencyKeyHeader} was used with another ${what} in the last 24 hours`,
  );
}

/**
 * What one idempotent request is asked: the caller's scoped key (absent: not idempotent), the validated
 * request (`payload`, whose equality the utility checks) and the caller's API key id (recorded with the change,
 * not part of the idempotency key or the payload check).
 */
export interface IdempotentRequest<Payload> {
  /** The Idempotency-Key in its API key's scope ({@link scopedKey}). */
  key?: string;
  payload: Payload;
  /** The API key's id (lib/http/caller.ts `callerKeyId`). */
  keyId?: string;
}

/**
 * The {@link IdempotentRequest} of `event` for its validated `payload`: its `Idempotency-Key` in the API key's
 * scope, when it has one, and the API key's id.
 * @throws HttpError 400 `invalid_request` for a malformed key ({@link parseIdempotencyKey})
 */
export function idempotentRequest<Payload>(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders' | 'requestContext'>,
  payload: Payload,
): IdempotentRequest<Payload> {
  const key = parseIdempotencyKey(headerValues(event, idempotencyKeyHeader));
  const keyId = callerKeyId(event);
  return {
    ...(key === undefined ? {} : { key: scopedKey(event.requestContext.authorizer, key) }),
    payload,
    ...(keyId === undefined ? {} : { keyId }),
  };
}

/** Maps the utility's refusals to the contract's errors; an unreachable store becomes the SDK's own error. */
function contractError(error: unknown, what: string): unknown {
  if (error instanceof IdempotencyAlreadyInProgressError) {
    return new HttpError(
      'conflict',
      `a request with this ${idempotencyKeyHeader} is still running; retry later`,
    );
  }
  if (error instanceof IdempotencyValidationError) return keyReused(what);
  if (error instanceof IdempotencyPersistenceLayerError && error.cause instanceof Error) return error.cause;
  return error;
}

/** How {@link idempotentRequests} keeps its records. */
export interface IdempotencyOptions {
  /** The idempotency table (`IDEMPOTENCY_TABLE_NAME`). */
  tableName: string;
  /** The operation's name: the prefix of its records' ids (`placeOrder#<hash>`), so operations never meet. */
  operation: string;
  /** What the payload is, in the 422's message (`order`, `batch`). */
  what: string;
}

/**
 * `run` made idempotent by {@link IdempotentRequest.key} over Powertools' DynamoDB persistence layer (key `id`,
 * TTL attribute `expiration`; its records name their Lambda request, so the SDK's own retry of a record's write
 * is not taken for a concurrent repeat: request-persistence-layer.ts): a concurrent repeat is 409 `conflict`, a
 * repeat with the same payload answers the first result again (a result or a remembered {@link Refusal}), another
 * payload is 422 `idempotency_key_reused`, and a result thrown (a 400 or 503) is not remembered. A repeated
 * answer is marked `replayed` (a repeated refusal is thrown with {@link replayedHeaders}). A request
 * without a key calls `run` directly. `run` is given the scoped key too, for a guarantee of its own across a
 * Lambda's death (placeOrder's claim, docs/architecture.md "Orders exactly once"; the batch's request token,
 * "Writes exactly once"): the utility's in-progress lock expires with the invocation that died after a commit.
 * @returns a function of the request and the invocation's Lambda context (it bounds the in-progress lock),
 * answering the result and whether it is a replay. Not
 * the utility's middy middleware: in 2.35.0 its `onError` deletes the record even when its own `before`
 * refused the request, so a repeat answered 409 or 422 frees the first one's lock and a further repeat applies
 * again (aws-powertools/powertools-lambda-typescript#5675, fixed by #5676, unreleased). This wrapper deletes
 * only a record it acquired, when `run` fails.
 */
export function idempotentRequests<Payload, Result extends object>(
  run: (payload: Payload, key?: string, keyId?: string) => Promise<Result | Refusal>,
  { tableName, operation, what }: IdempotencyOptions,
): (request: IdempotentRequest<Payload>, context: Context) => Promise<Answered<Result>> {
  const persistenceStore = new RequestPersistenceLayer({ tableName, clientConfig: dynamoDbClientConfig });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'payload',
    expiresAfterSeconds: idempotencyWindowSeconds,
  });
  // Whether the current request ran `run` (one request at a time per execution environment): a result the
  // utility returned without running it is a remembered one.
  let ran = false;
  const idempotent = makeIdempotent(
    async ({ payload, key, keyId }: IdempotentRequest<Payload>) => {
      ran = true;
      return run(payload, key, keyId);
    },
    { persistenceStore, config, keyPrefix: operation },
  );
  return async (request, context) => {
    if (request.key === undefined)
      return resultOf(await run(request.payload, undefined, request.keyId), false);
    config.registerLambdaContext(context);
    persistenceStore.registerRequest(context.awsRequestId);
    ran = false;
    const result = await idempotent(request).catch((error: unknown) => {
      throw contractError(error, what);
    });
    return resultOf(result as Result | Refusal, !ran);
  };
}
