/** InventoryUpdate, updateInventory's body: docs/service-spec.md §4.2; docs/contract.md "InventoryUpdate". */
import { invalidRequest, unknownMembers } from '../http/errors.ts';
import { ownValue } from '../http/request-parameters.ts';
import { isPetStatus, type PetStatus, petStatuses } from './inventory-item.ts';
import { isQuantity, maxQuantity, quantityRule } from './quantity.ts';

/**
 * Why a PATCH changes an entry (docs/service-spec.md §4.2: "new arrivals, returns or manual adjustments"; a
 * sale at the counter and stock lost or damaged: docs/contract.md "InventoryUpdate").
 */
export const inventoryReasons = ['arrival', 'return', 'adjustment', 'sale', 'loss'] as const;

/** One of `arrival`, `return`, `adjustment`, `sale`, `loss`. */
export type InventoryReason = (typeof inventoryReasons)[number];

/** The reason of a PATCH that names none (docs/contract.md "InventoryUpdate"). */
export const defaultReason: InventoryReason = 'adjustment';

/**
 * The validated body, at least one of: the new stock count or an adjustment of it (never both), the new status,
 * the new reorder point (`null`: cleared); and why.
 */
export interface InventoryUpdate {
  quantity?: number;
  /** Added to the current quantity (docs/contract.md "Inventory semantics": adjustments); never 0. */
  adjustBy?: number;
  status?: PetStatus;
  reorderPoint?: number | null;
  reason: InventoryReason;
}

/** The members that change something, in message order. */
const changing = ['quantity', 'adjustBy', 'status', 'reorderPoint'];
const members = [...changing, 'reason'];

/** The reorder point rule as the client reads it in a 400 message. */
const reorderPointRule = `reorderPoint must be an integer from 0 to ${maxQuantity}, or null to clear it`;

/** The adjustment rule as the client reads it in a 400 message. */
const adjustByRule = `adjustBy must be an integer from -${maxQuantity} to ${maxQuantity}, not 0`;

/** True when `value` is an accepted adjustment: an integer from -2147483647 to 2147483647 other than 0. */
function isAdjustment(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value !== 0 && Math.abs(value) <= maxQuantity
  );
}

/** How a body that holds an InventoryUpdate is named and shown in 400 messages, and its other members. */
export interface UpdateShape {
  /** The object's name in messages (`request body`, `a change`). */
  subject: string;
  /** A valid example, shown when the value is not an object. */
  example: string;
  /** Members allowed beside quantity, status, reorderPoint and reason, in message order before them (`petId`) or after. */
  before?: readonly string[];
  after?: readonly string[];
}

/** updateInventory's body. */
const patchBody: UpdateShape = { subject: 'request body', example: '{"quantity": 5}' };

/**
 * Validates a parsed JSON value as an InventoryUpdate: an object with at least one of `quantity` or `adjustBy`
 * (an integer from -2147483647 to 2147483647, not 0; never both), `status` and `reorderPoint` (an integer from 0
 * to 2147483647, or null), and optionally `reason` (default
 * {@link defaultReason}); no other member than those and `shape`'s (default:
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
  const adjustBy = ownValue(record, 'adjustBy');
  const status = ownValue(record, 'status');
  const reorderPoint = ownValue(record, 'reorderPoint');
  const reason = Object.hasOwn(record, 'reason') ? record.reason : defaultReason;
  if (
    quantity === undefined &&
    adjustBy === undefined &&
    status === undefined &&
    reorderPoint === undefined
  ) {
    throw invalidRequest(`${subject} must contain at least one of ${changing.join(', ')}`);
  }
  if (quantity !== undefined && adjustBy !== undefined) {
    throw invalidRequest(`${subject} may contain quantity or adjustBy, not both: set the stock or adjust it`);
  }
  if (quantity !== undefined && !isQuantity(quantity)) throw invalidRequest(quantityRule);
  if (adjustBy !== undefined && !isAdjustment(adjustBy)) throw invalidRequest(adjustByRule);
  if (reorderPoint !== undefined && reorderPoint !== null && !isQuantity(reorderPoint)) {
    throw invalidRequest(reorderPointRule);
  }
  if (status !== undefined && !isPetStatus(status)) {
    throw invalidRequest(`status must be one of ${petStatuses.join(', ')}`);
  }
  if (!(inventoryReasons as readonly unknown[]).includes(reason)) {
    throw invalidRequest(`reason must be one of ${inventoryReasons.join(', ')}`);
  }
  return {
    ...(quantity === undefined ? {} : { quantity }),
    ...(adjustBy === undefined ? {} : { adjustBy }),
    ...(status === undefined ? {} : { status }),
    ...(reorderPoint === undefined ? {} : { reorderPoint }),
    reason,
  } as InventoryUpdate;
}
