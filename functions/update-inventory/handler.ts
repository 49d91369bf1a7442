/** updateInventory, `PATCH /v1/inventory/{petId}` (proxy 1.0): docs/contract.md "Inventory semantics". */
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { headerValues } from '#lib/http/headers.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { keyClaim } from '#lib/idempotency/claim.ts';
import { keyReused, type Refusal } from '#lib/idempotency/idempotency-key.ts';
import { idempotentFunction } from '#lib/idempotency/idempotent-function.ts';
import { entityTag, type IfMatch, parseIfMatch } from '#lib/inventory/entity-tag.ts';
import { type InventoryItem, inventoryJson } from '#lib/inventory/inventory-item.ts';
import { type InventoryUpdate, parseInventoryUpdate } from '#lib/inventory/inventory-update.ts';
import { parsePetId } from '#lib/inventory/pet-id.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { tables } from '#lib/tables.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));
const claimsTable = requiredEnv(tables.idempotency.env);
/** The prefix of an update claim's id (lib/idempotency/claim.ts). */
const claimPrefix = 'updateInventoryClaim#';

/** A validated PATCH: the entry's petId, the update and its If-Match (all a repeat of its key must equal). */
interface EntryPatch {
  petId: string;
  update: InventoryUpdate;
  ifMatch?: IfMatch;
}

/**
 * Applies `patch` for the API key `keyId`, with the claim of the scoped Idempotency-Key `key` when there is one:
 * the entry as it is after the write, or the contract's 404, 412, or 409 for an adjustment out of range.
 * @throws HttpError 422 `idempotency_key_reused` when the key's claim holds another update (not remembered)
 */
async function apply(patch: EntryPatch, key?: string, keyId?: string): Promise<InventoryItem | Refusal> {
  const { petId, update, ifMatch } = patch;
  const keyed =
    key === undefined
      ? undefined
      : { tableName: claimsTable, claim: keyClaim(claimPrefix, key, JSON.stringify(patch)) };
  const result = await store.update(
    petId,
    { ...update, ...(keyId === undefined ? {} : { keyId }) },
    ifMatch,
    keyed,
  );
  if (result === 'key_reused') throw keyReused('update');
  if (result === 'not_found') return { code: 'not_found', message: `no inventory entry for petId ${petId}` };
  if (result === 'precondition_failed') {
    return {
      code: 'precondition_failed',
      message: `If-Match does not match the current entry of petId ${petId}`,
    };
  }
  return result; // the entry, or an adjustment's 409
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
