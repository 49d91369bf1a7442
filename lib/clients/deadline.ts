/**
 * The running invocation's deadline for DynamoDB: no call of a service client runs past it, so a function
 * answers 503 while it still has time instead of being ended by its timeout (docs/contract.md "Exactly once
 * under retries"; docs/implementation.md "DynamoDB failures"). One invocation at a time per execution
 * environment, as Lambda runs them: the deadline is the module's state.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HttpError } from '../http/errors.ts';

/** Epoch milliseconds past which no DynamoDB call of this invocation may still be waited for; none outside one. */
let deadline: number | undefined;

/** Sets (epoch milliseconds) or clears (undefined) the running invocation's deadline. */
export function setDeadline(epochMs: number | undefined): void {
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
