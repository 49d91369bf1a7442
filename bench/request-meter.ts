/**
 * Counts the DynamoDB requests a client sends and the capacity they consume, with two middlewares on the
 * client's stack (bench only; the service never carries them):
 * - `initialize` step: sets `ReturnConsumedCapacity: 'TOTAL'` on every command and adds up the
 *   `ConsumedCapacity.CapacityUnits` DynamoDB returns;
 * - `finalizeRequest` step, low priority (inside the retry middleware): counts each HTTP request actually
 *   sent, retries included.
 * A `DynamoDBDocumentClient` shares its stack with the `DynamoDBClient` it wraps, so metering either meters both.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What the metered client did since the last {@link RequestMeter.take}. */
export interface Metered {
  /** HTTP requests sent to DynamoDB. */
  requests: number;
  /** Capacity units DynamoDB reported (RCU/RRU for reads, WCU/WRU for writes). */
  capacityUnits: number;
  /** Command names in the order sent, e.g. `ScanCommand`. */
  commands: string[];
}

/** A meter on one client. */
export interface RequestMeter {
  /** The counts since the last call (or since attaching), and resets them. */
  take(): Metered;
  /** Removes the middlewares. */
  detach(): void;
}

const countName = 'benchCountRequests';
const capacityName = 'benchConsumedCapacity';

/** Attaches a meter to `client` (see the module docstring). */
export function attachMeter(client: DynamoDBDocumentClient): RequestMeter {
  let current: Metered = { requests: 0, capacityUnits: 0, commands: [] };
  const stack = client.middlewareStack;
  stack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      current.commands.push(String(context.commandName));
      const result = await next({ ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } });
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
      current.capacityUnits += consumed?.CapacityUnits ?? 0;
      return result;
    },
    { step: 'initialize', name: capacityName, override: true },
  );
  stack.add(
    (next) => async (args) => {
      current.requests++;
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: countName, override: true },
  );
  return {
    take() {
      const taken = current;
      current = { requests: 0, capacityUnits: 0, commands: [] };
      return taken;
    },
    detach() {
      stack.remove(countName);
      stack.remove(capacityName);
    },
  };
}
