/** batchUpdateInventory, `POST /v1/inventory/batch` (proxy 1.0; experimental): docs/contract.md "Inventory semantics". */
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { keyReused, type Refusal } from '#lib/idempotency/idempotency-key.ts';
import { idempotentFunction } from '#lib/idempotency/idempotent-function.ts';
import { type BatchChange, parseBatchChanges } from '#lib/inventory/batch-changes.ts';
import {
  type BatchItems,
  batchClaim,
  batchItemsJson,
  batchRequestToken,
  batchUpdate,
  claimedBatchLimit,
} from '#lib/inventory/batch-update.ts';
import { tables } from '#lib/tables.ts';

const write = batchUpdate(
  documentClient,
  requiredEnv(tables.inventory.env),
  requiredEnv(tables.idempotency.env),
);

/** What a keyed batch writes to be recognised by its retry: its key's claim, or its token when it has no room. */
function keyed(changes: readonly BatchChange[], key: string) {
  return changes.length <= claimedBatchLimit
    ? { claim: batchClaim(key, changes) }
    : { requestToken: batchRequestToken(changes, key) };
}

/**
 * Applies `changes` for the API key `keyId`, under the scoped Idempotency-Key `key` when there is one: the
 * entries as written (the key's first answer, when its claim shows it committed before), or the contract's 404
 * or 412, or an adjustment's 409, naming the first failing element by its index.
 * @throws HttpError 422 `idempotency_key_reused` when the key's claim holds another batch (not remembered)
 */
async function apply(changes: BatchChange[], key?: string, keyId?: string): Promise<BatchItems | Refusal> {
  const result = await write(changes, {
    ...(keyId === undefined ? {} : { keyId }),
    ...(key === undefined ? {} : keyed(changes, key)),
  });
  if (result === 'key_reused') throw keyReused('batch');
  if ('items' in result) return result;
  const { petId } = changes[result.index] as BatchChange;
  const { refusal } = result;
  if (typeof refusal === 'object')
    return { code: refusal.code, message: `changes[${result.index}]: ${refusal.message}` };
  return refusal === 'not_found'
    ? { code: 'not_found', message: `changes[${result.index}]: no inventory entry for petId ${petId}` }
    : {
        code: 'precondition_failed',
        message: `changes[${result.index}]: ifMatch does not match the current entry of petId ${petId}`,
      };
}

/** The Lambda handler. */
export const handler = idempotentFunction('batchUpdateInventory', {
  what: 'batch',
  example: '{"changes": [{"petId": 7, "quantity": 5}]}',
  parse: parseBatchChanges,
  run: apply,
  respond: (applied) => jsonResponse(200, batchItemsJson(applied)),
});
