/** addPet, `POST /v1/pets` (REST proxy event 1.0; experimental): docs/contract.md "Pets". */
import { operationNamed, stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { callerKeyId } from '#lib/http/caller.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonBody } from '#lib/http/json-body.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { parseNewPet, petExists, petJson } from '#lib/pets/pet.ts';
import { petStore } from '#lib/pets/store.ts';
import { tables } from '#lib/tables.ts';

const store = petStore(documentClient, requiredEnv(tables.inventory.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('addPet'))
  .use(jsonBody({ example: '{"name": "Rex"}' }))
  .handler(async (event) => {
    const pet = parseNewPet(event.body);
    const added = await store.add(pet, callerKeyId(event));
    if (added === 'exists') throw petExists(pet.id as string);
    return jsonResponse(201, petJson(added), { Location: `/${stageName}/pets/${added.id}` });
  });
