/**
 * The Lambda handler of an idempotent JSON request: placeOrder, batchUpdateInventory, updateInventory and
 * addPet (docs/contract.md "Store orders").
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { operationNamed } from '../api.ts';
import { requiredEnv } from '../env.ts';
import { httpFunction } from '../http/http-function.ts';
import { jsonBody } from '../http/json-body.ts';
import { tables } from '../tables.ts';
import { idempotentRequest, idempotentRequests, type Refusal, replayedHeaders } from './idempotency-key.ts';

/** What an {@link idempotentFunction} does with a request. */
export interface IdempotentOperation<Payload, Result extends object> {
  /** What the payload is, in the 422's message (`order`, `batch`). */
  what: string;
  /** A body the 400 of a missing body shows. */
  example?: string;
  /**
   * The validated payload of the parsed JSON body and of the request's path and headers (all a repeat must
   * equal). @throws HttpError 400
   */
  parse(body: unknown, event: APIGatewayProxyEvent): Payload;
  /** Applies the payload, under the scoped Idempotency-Key when there is one (`idempotentRequests`' `run`). */
  run(payload: Payload, key?: string, keyId?: string): Promise<Result | Refusal>;
  /** The response of the result (the first one's again for a repeat). */
  respond(result: Result): APIGatewayProxyResult;
}

/**
 * The handler of `operation`: its middy chain with a required JSON body, `parse`, then `run` once per
 * Idempotency-Key over the idempotency table (`idempotentRequests`), then `respond`; a repeated answer carries
 * `Idempotent-Replayed: true`.
 */
export function idempotentFunction<Payload, Result extends object>(
  operation: string,
  { what, example, parse, run, respond }: IdempotentOperation<Payload, Result>,
) {
  const runOnce = idempotentRequests(run, {
    tableName: requiredEnv(tables.idempotency.env),
    operation,
    what,
  });
  return httpFunction(operationNamed(operation))
    .use(jsonBody(example === undefined ? {} : { example }))
    .handler(async (event, context) => {
      const { result, replayed } = await runOnce(idempotentRequest(event, parse(event.body, event)), context);
      const response = respond(result);
      return replayed ? { ...response, headers: { ...response.headers, ...replayedHeaders } } : response;
    });
}
