/**
 * addPet: `POST /v1/pets` (docs/contract.md "Pets"; experimental).
 *
 * Event: API Gateway REST proxy event, payload format 1.0, already authorized by the bearer authorizer.
 * Takes: a JSON Pet body (`name` required; `id`, `category`, `photoUrls`, `tags`, `status` optional; numbers
 * judged on their source text, so an int64 `id` is exact).
 * Returns 201 with the Pet and `Location: /v1/pets/{id}`; the pet's inventory entry exists from then on with
 * quantity 0 and the pet's status (one item, one conditional PutItem).
 * Errors: 400 `invalid_request` (bad body or content type), 409 `conflict` (the id exists), 503
 * `service_unavailable`.
 * Environment: `INVENTORY_TABLE_NAME`.
 */
import { operationNamed, stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
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
    const added = await store.add(pet);
    if (added === 'exists') throw petExists(pet.id as string);
    return jsonResponse(201, petJson(added), { Location: `/${stageName}/pets/${added.id}` });
  });
