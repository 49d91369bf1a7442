/** getPetById, `GET /v1/pets/{petId}` (proxy event 1.0; deprecated, spec §9.4): docs/contract.md "Pets". */
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { parsePetId } from '#lib/inventory/pet-id.ts';
import {
  deprecationDates,
  deprecationEnv,
  deprecationHeaders,
  refuseAfterSunset,
} from '#lib/pets/deprecation.ts';
import { petJson } from '#lib/pets/pet.ts';
import { petStore } from '#lib/pets/store.ts';
import { tables } from '#lib/tables.ts';

const store = petStore(documentClient, requiredEnv(tables.inventory.env));
const dates = deprecationDates(
  requiredEnv(deprecationEnv.deprecatedAt),
  requiredEnv(deprecationEnv.sunsetAt),
);

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('getPetById'), {
  headers: deprecationHeaders(dates),
}).handler(async (event) => {
  refuseAfterSunset(dates, new Date(), 'getPetById');
  const petId = parsePetId(event.pathParameters?.petId);
  const pet = await store.get(petId);
  if (!pet) throw notFound(`no pet with id ${petId}`);
  return jsonResponse(200, petJson(pet));
});
