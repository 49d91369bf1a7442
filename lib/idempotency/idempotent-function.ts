/** The Lambda handler of an idempotent JSON request: placeOrder and batchUpdateInventory (docs/contract.md "Store orders"). */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { operationNamed } from '../api.ts';
import { requiredEnv } from '../env.ts';
import { httpFunction } from '../http/http-function.ts';
import { jsonBody } from '../http/json-body.ts';
import { tables } from '../tables.ts';
import { idempotentRequest, idempotentRequests, type Refusal } from './idempotency-key.ts';

/** What an {@link idempotentFunction} does with a request. */
export interface IdempotentOperation<Payload, Result extends object> {
  /** What the payload is, in the 422's message (`order`, `batch`). */
  what: string;
  /** A body the 400 of a missing body shows. */
  example: string;
  /** The validated payload of the parsed JSON body. @throws HttpError 400 */
  parse(body: unknown): Payload;
  /** Applies the payload, under the scoped Idempotency-Key when there is one (`idempotentRequests`' `run`). */
  run(payload: Payload, key?: string, keyId?: string): Promise<Result | Refusal>;
  /** The response of the result (the first one's again for a repeat). */
  respond(result: Result): APIGatewayProxyResult;
}

/**
 * The handler of `operation`: its middy chain with a required JSON body, `parse`, then `run` once per
 * Idempotency-Key over the idempotency table (`idempotentRequests`), then `respond`.
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
    .use(jsonBody({ example }))
    .handler(async (event, context) =>
      respond(await runOnce(idempotentRequest(event, parse(event.body)), context)),
    );
}
