/** InventoryUpdate, updateInventory's body: docs/service-spec.md §4.2; docs/contract.md "InventoryUpdate". */
import { invalidRequest, unknownMembers } from '../http/errors.ts';
import { ownValue } from '../http/request-parameters.ts';
import { isPetStatus, type PetStatus, petStatuses } from './inventory-item.ts';
import { isQuantity, quantityRule } from './quantity.ts';

/** Why a PATCH changes an entry (docs/service-spec.md §4.2: "new arrivals, returns or manual adjustments"). */
export const inventoryReasons = ['arrival', 'return', 'adjustment'] as const;

/** One of `arrival`, `return`, `adjustment`. */
export type InventoryReason = (typeof inventoryReasons)[number];

/** The reason of a PATCH that names none (docs/contract.md "InventoryUpdate"). */
export const defaultReason: InventoryReason = 'adjustment';

/** The validated body: the new stock count, the new status, or both, and why. */
export type InventoryUpdate = (
  | { quantity: number; status?: PetStatus }
  | { quantity?: number; status: PetStatus }
) & {
  reason: InventoryReason;
};

const members = ['quantity', 'status', 'reason'];

/** How a body that holds an InventoryUpdate is named and shown in 400 messages, and its other members. */
export interface UpdateShape {
  /** The object's name in messages (`request body`, `a change`). */
  subject: string;
  /** A valid example, shown when the value is not an object. */
  example: string;
  /** Members allowed beside quantity, status and reason, in message order before them (`petId`) or after. */
  before?: readonly string[];
  after?: readonly string[];
}

/** updateInventory's body. */
const patchBody: UpdateShape = { subject: 'request body', example: '{"quantity": 5}' };

/**
 * Validates a parsed JSON value as an InventoryUpdate: an object with `quantity`, `status` or both, and
 * optionally `reason` (default {@link defaultReason}); no other member than those and `shape`'s (default:
 * updateInventory's body, none). The members of `shape` are left to the caller.
 * @throws HttpError 400 `invalid_request` naming the problem, unknown members by name (at most five, each cut
 *   to 64 characters).
 */
export function parseInventoryUpdate(body: unknown, shape: UpdateShape = patchBody): InventoryUpdate {
  const { subject, example, before = [], after = [] } = shape;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest(`${subject} must be a JSON object such as ${example}`);
  }
  const allowed = [...before, ...members, ...after];
  const unknown = unknownMembers(body, allowed);
  if (unknown)
    throw invalidRequest(`${subject} may only contain ${allowed.join(', ')}; not allowed: ${unknown}`);
  const record = body as Record<string, unknown>;
  const quantity = ownValue(record, 'quantity');
  const status = ownValue(record, 'status');
  const reason = Object.hasOwn(record, 'reason') ? record.reason : defaultReason;
  if (quantity === undefined && status === undefined) {
    throw invalidRequest(`${subject} must contain quantity, status or both`);
  }
  if (quantity !== undefined && !isQuantity(quantity)) throw invalidRequest(quantityRule);
  if (status !== undefined && !isPetStatus(status)) {
    throw invalidRequest(`status must be one of ${petStatuses.join(', ')}`);
  }
  if (!(inventoryReasons as readonly unknown[]).includes(reason)) {
    throw invalidRequest(`reason must be one of ${inventoryReasons.join(', ')}`);
  }
  return {
    ...(quantity === undefined ? {} : { quantity }),
    ...(status === undefined ? {} : { status }),
    reason,
  } as InventoryUpdate;
}
