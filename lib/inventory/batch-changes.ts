/** batchUpdateInventory's body, `{"changes": [...]}`: docs/contract.md "Inventory semantics". */
import { HttpError, invalidRequest, unknownMembers } from '../http/errors.ts';
import { type IfMatch, parseIfMatch } from './entity-tag.ts';
import { type InventoryUpdate, parseInventoryUpdate, type UpdateShape } from './inventory-update.ts';
import { int64Member } from './pet-id.ts';

/** Most changes one batch holds: DynamoDB's limit of actions in one transaction (TransactWriteItems). */
export const maxBatchChanges = 100;

/** One change of a batch: the entry's petId (canonical decimal), its InventoryUpdate and its precondition. */
export interface BatchChange {
  petId: string;
  update: InventoryUpdate;
  /** The element's `ifMatch`, read as the `If-Match` header is (lib/inventory/entity-tag.ts). */
  ifMatch?: IfMatch;
}

/** An element of `changes`: an InventoryUpdate with `petId` before and `ifMatch` after. */
const elementShape: UpdateShape = {
  subject: 'a change',
  example: '{"petId": 7, "quantity": 5}',
  before: ['petId'],
  after: ['ifMatch'],
};

/**
 * The change of the element `value`; `seen` holds the petIds of the elements before it, each with its index.
 * @throws HttpError 400 naming the element's problem (its index is added by the caller)
 */
function parseChange(value: unknown, seen: Map<string, number>): BatchChange {
  const update = parseInventoryUpdate(value, elementShape);
  const record = value as Record<string, unknown>;
  const petId = int64Member(record.petId, 'petId');
  const earlier = seen.get(petId);
  if (earlier !== undefined) throw invalidRequest(`petId ${petId} is changed by changes[${earlier}] already`);
  if (!Object.hasOwn(record, 'ifMatch')) return { petId, update };
  const rule = 'ifMatch must be * or entity tags as If-Match takes them, such as "\\"12-available\\""';
  if (typeof record.ifMatch !== 'string') throw invalidRequest(rule);
  try {
    return { petId, update, ifMatch: parseIfMatch([record.ifMatch]) as IfMatch };
  } catch (error) {
    throw error instanceof HttpError ? invalidRequest(rule) : error;
  }
}

/**
 * Validates a parsed batch body: an object with exactly `changes`, an array of 1 to {@link maxBatchChanges}
 * elements, each `{"petId", "quantity"?, "status"?, "reason"?, "ifMatch"?}` with InventoryUpdate's rules
 * (lib/inventory/inventory-update.ts), a petId at most once. Checked in order, in time linear in the body.
 * @throws HttpError 400 `invalid_request`; for an element, the message starts with `changes[<index>]: `, the
 *   first element that fails (a petId named before fails at its second element).
 */
export function parseBatchChanges(body: unknown): BatchChange[] {
  const example = `{"changes": [${elementShape.example}]}`;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest(`request body must be a JSON object such as ${example}`);
  }
  const unknown = unknownMembers(body, ['changes']);
  if (unknown) throw invalidRequest(`request body may only contain changes; not allowed: ${unknown}`);
  const { changes } = body as { changes?: unknown };
  if (!Array.isArray(changes) || changes.length < 1 || changes.length > maxBatchChanges) {
    const held = Array.isArray(changes) ? `; it holds ${changes.length}` : '';
    throw invalidRequest(`changes must be an array of 1 to ${maxBatchChanges} changes${held}`);
  }
  const seen = new Map<string, number>();
  return changes.map((value, index) => {
    try {
      const change = parseChange(value, seen);
      seen.set(change.petId, index);
      return change;
    } catch (error) {
      throw error instanceof HttpError ? invalidRequest(`changes[${index}]: ${error.message}`) : error;
    }
  });
}
