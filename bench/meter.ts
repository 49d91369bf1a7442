/** Counts a client's DynamoDB requests (retries included) and the capacity units reported (bench only). */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Attaches the meter; `take()` returns the counts since the last call and resets them. */
export function attachMeter(client: Pick<DynamoDBDocumentClient, 'middlewareStack'>) {
  let current = { requests: 0, capacityUnits: 0 };
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' };
      const result = await next({ ...args, input });
      const output = result.output as { ConsumedCapacity?: { CapacityUnits?: number } };
      current.capacityUnits += output.ConsumedCapacity?.CapacityUnits ?? 0;
      return result;
    },
    { step: 'initialize', name: 'benchCapacity', override: true },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      current.requests++;
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'benchRequests', override: true },
  );
  return {
    take() {
      const taken = current;
      current = { requests: 0, capacityUnits: 0 };
      return taken;
    },
  };
}
