/** addPet, `POST /v1/pets` (REST proxy event 1.0; experimental): docs/contract.md "Pets". */
import { stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { keyClaim } from '#lib/idempotency/claim.ts';
import { keyReused, type Refusal } from '#lib/idempotency/idempotency-key.ts';
import { idempotentFunction } from '#lib/idempotency/idempotent-function.ts';
import { type NewPet, type Pet, parseNewPet, petExists, petJson } from '#lib/pets/pet.ts';
import { petStore } from '#lib/pets/store.ts';
import { tables } from '#lib/tables.ts';

const store = petStore(documentClient, requiredEnv(tables.inventory.env));
const claimsTable = requiredEnv(tables.idempotency.env);
/** The prefix of a pet claim's id (lib/idempotency/claim.ts). */
const claimPrefix = 'addPetClaim#';

/**
 * Adds `pet` for the API key `keyId`, with the claim of the scoped Idempotency-Key `key` when there is one: the
 * stored Pet, or the contract's 409 when its `id` is taken.
 * @throws HttpError 422 `idempotency_key_reused` when the key's claim holds another pet (not remembered)
 */
async function add(pet: NewPet, key?: string, keyId?: string): Promise<Pet | Refusal> {
  const keyed =
    key === undefined
      ? undefined
      : { tableName: claimsTable, claim: keyClaim(claimPrefix, key, JSON.stringify(pet)) };
  const added = await store.add(pet, keyId, keyed);
  if (added === 'key_reused') throw keyReused('pet');
  if (added !== 'exists') return added;
  const { body } = petExists(pet.id as string);
  return { code: body.code, message: body.message };
}

/** The Lambda handler. */
export const handler = idempotentFunction('addPet', {
  what: 'pet',
  example: '{"name": "Rex"}',
  parse: parseNewPet,
  run: add,
  respond: (added) => jsonResponse(201, petJson(added), { Location: `/${stageName}/pets/${added.id}` }),
});
