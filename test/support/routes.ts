/** One valid request per operation of lib/api.ts (docs/contract.md "Authentication and authorization"). */
import { type Operation, operations } from '#lib/api.ts';

/** A request to send with `TestApi.request`. */
export interface ProbeRequest {
  operation: Operation;
  method: string;
  /** Path under the base URL, e.g. `/inventory/7`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The status of the valid request's success (200, or 201 for a creation). */
  success: number;
}

/** The body of a valid request, for the operations that take one. */
const bodies: Readonly<Record<string, string>> = {
  updateInventory: '{"quantity": 11}',
  addPet: '{"name": "Probe"}',
  placeOrder: '{"petId": PET_ID, "quantity": 1}',
  batchUpdateInventory: '{"changes": [{"petId": PET_ID, "quantity": 11}]}',
  // The order's current status: 200 each time, changing nothing (docs/contract.md "Store orders").
  updateOrder: '{"status": "placed"}',
};

/** The operations that create (a POST that is not a creation, batchUpdateInventory, answers 200). */
const creations: readonly string[] = ['addPet', 'placeOrder'];

/**
 * A valid request for every operation, with path parameters filled from `petId` (an existing entry with
 * stock) and `orderId` (an existing `placed` order, when given). A creation answers 201 each time it is sent.
 */
export function probeRequests(petId: string, orderId = '1'): ProbeRequest[] {
  return operations.map((operation): ProbeRequest => {
    const path = operation.path.replace('{petId}', petId).replace('{orderId}', orderId);
    const body = bodies[operation.name]?.replace('PET_ID', petId);
    const success = creations.includes(operation.name) ? 201 : 200;
    return body === undefined
      ? { operation, method: operation.method, path, headers: {}, success }
      : {
          operation,
          method: operation.method,
          path,
          headers: { 'Content-Type': 'application/json' },
          body,
          success,
        };
  });
}
