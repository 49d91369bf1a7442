/**
 * The operation table (lib/api.ts) rendered as requests to probe: for each operation, a valid request
 * against an entry that exists, so every route can be tried with every credential case.
 */
import { type Operation, operations } from '#lib/api.ts';

/** A request to send with `TestApi.request`. */
export interface ProbeRequest {
  operation: Operation;
  method: string;
  /** Path under the base URL, e.g. `/inventory/7`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A valid request for every operation, with path parameters filled from `petId` (an existing entry). */
export function probeRequests(petId: string): ProbeRequest[] {
  return operations.map((operation): ProbeRequest => {
    const path = operation.path.replace('{petId}', petId);
    return operation.method === 'PATCH'
      ? {
          operation,
          method: 'PATCH',
          path,
          headers: { 'Content-Type': 'application/json' },
          body: '{"quantity": 11}',
        }
      : { operation, method: operation.method, path, headers: {} };
  });
}
