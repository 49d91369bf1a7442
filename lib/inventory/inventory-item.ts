/** InventoryItem and PetStatus (docs/service-spec.md §2), exact JSON (docs/contract.md "Identifiers"). */

/** The allowed PetStatus values (docs/service-spec.md §2 "PetStatus"). */
export const petStatuses = ['available', 'pending', 'sold'] as const;

/** One of `available`, `pending`, `sold`. */
export type PetStatus = (typeof petStatuses)[number];

/**
 * One inventory entry. `petId` is the canonical decimal string of a signed 64-bit integer (see `pet-id.ts`):
 * a JavaScript number cannot hold every int64, so petId is never a number in this service.
 * `quantity` is an integer from 0 to 2147483647; `reorderPoint`, when the entry has one, an integer from 0 to
 * 2147483647 (docs/contract.md "Inventory semantics": the entry is low while `quantity <= reorderPoint`).
 */
export interface InventoryItem {
  petId: string;
  quantity: number;
  status: PetStatus;
  reorderPoint?: number;
}

/** True when `value` is a PetStatus. */
export function isPetStatus(value: unknown): value is PetStatus {
  return (petStatuses as readonly unknown[]).includes(value);
}

/**
 * The JSON text of `items` (one InventoryItem or an array of them) with each petId written as a JSON number
 * literal, digit for digit (docs/contract.md "Identifiers": `9223372036854775807` comes back exactly). Each object has
 * exactly the members `petId`, `quantity`, `status`, in that order, then `reorderPoint` when the entry has one.
 */
export function inventoryJson(items: InventoryItem | readonly InventoryItem[]): string {
  if (!Array.isArray(items)) return itemJson(items as InventoryItem);
  let text = '[';
  for (let index = 0; index < items.length; index++) text += (index > 0 ? ',' : '') + itemJson(items[index]);
  return `${text}]`;
}

/**
 * The JSON value of an InventoryItem, for answers that add members to it: petId an exact JSON number
 * (`JSON.rawJSON`), members in the order {@link inventoryJson} writes (which writes the same text by template).
 */
export function inventoryValue({ petId, quantity, status, reorderPoint }: InventoryItem) {
  return {
    petId: JSON.rawJSON(petId),
    quantity,
    status,
    ...(reorderPoint === undefined ? {} : { reorderPoint }),
  };
}

/** One InventoryItem's JSON text, by template: a list renders hundreds of thousands of them. */
function itemJson({ petId, quantity, status, reorderPoint }: InventoryItem): string {
  // petId is canonical decimal digits, quantity and reorderPoint integers: their text is their JSON; status is
  // quoted by JSON.stringify unless it is one of the PetStatus values (nothing to escape).
  const statusJson = isPetStatus(status) ? `"${status}"` : JSON.stringify(status);
  const point = reorderPoint === undefined ? '' : `,"reorderPoint":${reorderPoint}`;
  return `{"petId":${petId},"quantity":${quantity},"status":${statusJson}${point}}`;
}
