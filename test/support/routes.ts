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
  /**
   * The status of the valid request's success: 200, 201 for a creation, and 404 for the operations on one
   * webhook endpoint, whose probe names an endpoint no key holds (a delete or a rotation would change it, and the
   * probes are sent many times): the function answered it, past the authorizer and the scope check (their
   * successes: test/http/webhook-endpoints.test.ts, test/events/webhook-attempts.test.ts).
   */
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
  // A new URL at each read of the probe's body (see probeRequests): a URL the key holds already answers 200.
  createWebhookEndpoint: '{"url": "http://127.0.0.1:9/probe-N"}',
  // A well-formed event id: the probe's endpoint is held by no key (404, see probeEndpointId).
  redeliverWebhook: '{"eventId": "inventory.PET_ID.1"}',
};

/** The operations that create (a POST that is not a creation, batchUpdateInventory, answers 200). */
const creations: readonly string[] = ['addPet', 'placeOrder', 'createWebhookEndpoint'];

/** The endpoint the probes of the operations on one webhook endpoint name: held by no key. */
export const probeEndpointId = 'ws_probeprobeprobep';

/**
 * A valid request for every operation, with path parameters filled from `petId` (an existing entry with
 * stock) and `orderId` (an existing `placed` order, when given). A creation answers 201 each time it is sent.
 */
export function probeRequests(petId: string, orderId = '1'): ProbeRequest[] {
  return operations.map((operation): ProbeRequest => {
    const path = operation.path
      .replace('{petId}', petId)
      .replace('{orderId}', orderId)
      .replace('{endpointId}', probeEndpointId);
    const template = bodies[operation.name]?.replace('PET_ID', petId);
    const success = creations.includes(operation.name)
      ? 201
      : operation.path.includes('{endpointId}')
        ? 404
        : 200;
    if (template === undefined) return { operation, method: operation.method, path, headers: {}, success };
    const probe = {
      operation,
      method: operation.method,
      path,
      headers: { 'Content-Type': 'application/json' },
      success,
    };
    // Each read a new body (`probe-N` numbered): each send of the create probe makes a new endpoint.
    let sent = 0;
    return Object.defineProperty(probe, 'body', {
      enumerable: true,
      get: () => template.replace('probe-N', `probe-${sent++}`),
    }) as ProbeRequest;
  });
}
