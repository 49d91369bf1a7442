/**
 * Middy middleware: the invocation's DynamoDB deadline (lib/clients/deadline.ts), the time Lambda gives the
 * function less a margin ({@link marginMs}), so every function answers 503 `service_unavailable` before its
 * timeout: no Lambda timeout ever answers a request (docs/contract.md "Exactly once under retries").
 */
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { setDeadline } from '../clients/deadline.ts';

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
