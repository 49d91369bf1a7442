/**
 * The invocation's DynamoDB deadline: the time Lambda gives the function less a margin ({@link marginMs}). The
 * middy middleware sets it; every call of a client wrapped by {@link withDeadline} ends by it, so every function
 * answers 503 `service_unavailable` before its timeout: no Lambda timeout ever answers a request
 * (docs/contract.md "Exactly once under retries"; docs/implementation.md "DynamoDB failures"). One invocation at
 * a time per execution environment, as Lambda runs them: the deadline is the module's state.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { HttpError } from './errors.ts';

/** Epoch milliseconds past which no DynamoDB call of this invocation may still be waited for; none outside one. */
let deadline: number | undefined;

/** Sets (epoch milliseconds) or clears (undefined) the running invocation's deadline. */
function setDeadline(epochMs: number | undefined): void {
  deadline = epochMs;
}

/** 503 `service_unavailable`: the database did not answer within the time the function has. */
function outOfTime(): HttpError {
  return new HttpError('service_unavailable', 'the inventory database did not answer in time; retry later');
}

/**
 * Bounds every call of `client` (all its SDK attempts) by the invocation's deadline: a call made past it is
 * refused, and a call still running at it is given up (its promise rejected; the request it sent may still
 * commit, which a 503 allows: "not known to be applied").
 * @returns `client`
 */
export function withDeadline<Client extends Pick<DynamoDBClient, 'middlewareStack'>>(client: Client): Client {
  client.middlewareStack.add(
    (next) => async (args) => {
      if (deadline === undefined) return next(args);
      const left = deadline - Date.now();
      if (left <= 0) throw outOfTime();
      const call = next(args);
      // Given up at the deadline: its later failure is nobody's to handle.
      call.catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      const timeUp = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(outOfTime()), left);
      });
      try {
        return await Promise.race([call, timeUp]);
      } finally {
        clearTimeout(timer);
      }
    },
    { step: 'initialize', name: 'invocationDeadline', override: true },
  );
  return client;
}

/**
 * Milliseconds kept after the deadline for the error response and the middlewares after it, of `remainingMs`
 * the invocation has: half of it, at most one second (a 1 s function keeps 500 ms).
 */
export function marginMs(remainingMs: number): number {
  return Math.min(1000, remainingMs / 2);
}

/** Sets the deadline before the handler from `context.getRemainingTimeInMillis()`; clears it after. */
export function invocationDeadline(): MiddlewareObj<unknown, unknown, Error, Context> {
  const clear = () => setDeadline(undefined);
  return {
    before: ({ context }) => {
      const remaining = context.getRemainingTimeInMillis();
      setDeadline(Date.now() + remaining - marginMs(remaining));
    },
    after: clear,
    onError: clear,
  };
}
