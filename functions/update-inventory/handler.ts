/** updateInventory, `PATCH /v1/inventory/{petId}` (proxy 1.0): docs/contract.md "Inventory semantics". */
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { headerValues } from '#lib/http/headers.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import type { Refusal } from '#lib/idempotency/idempotency-key.ts';
import { idempotentFunction } from '#lib/idempotency/idempotent-function.ts';
import { entityTag, type IfMatch, parseIfMatch } from '#lib/inventory/entity-tag.ts';
import { type InventoryItem, inventoryJson } from '#lib/inventory/inventory-item.ts';
import { type InventoryUpdate, parseInventoryUpdate } from '#lib/inventory/inventory-update.ts';
import { parsePetId } from '#lib/inventory/pet-id.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { tables } from '#lib/tables.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));

/** A validated PATCH: the entry's petId, the update and its If-Match (all a repeat of its key must equal). */
interface EntryPatch {
  petId: string;
  update: InventoryUpdate;
  ifMatch?: IfMatch;
}

/**
 * Applies `patch` for the API key `keyId`: the entry as it is after the write, or the contract's 404 or 412.
 */
async function apply({ petId, update, ifMatch }: EntryPatch, _key?: string, keyId?: string) {
  const result = await store.update(petId, { ...update, ...(keyId === undefined ? {} : { keyId }) }, ifMatch);
  if (result === 'not_found')
    return { code: 'not_found', message: `no inventory entry for petId ${petId}` } as Refusal;
  if (result === 'precondition_failed') {
    const message = `If-Match does not match the current entry of petId ${petId}`;
    return { code: 'precondition_failed', message } as Refusal;
  }
  return result;
}

/** The Lambda handler. */
export const handler = idempotentFunction<EntryPatch, InventoryItem>('updateInventory', {
  what: 'update',
  parse: (body, event) => {
    const petId = parsePetId(event.pathParameters?.petId);
    const update = parseInventoryUpdate(body);
    const ifMatch = parseIfMatch(headerValues(event, 'If-Match'));
    return { petId, update, ...(ifMatch === undefined ? {} : { ifMatch }) };
  },
  run: apply,
  respond: (item) => jsonResponse(200, inventoryJson(item), { ETag: entityTag(item) }),
});
