/**
 * getPetById: `GET /v1/pets/{petId}` (docs/service-spec.md §9.4; docs/contract.md "Pets"; deprecated).
 *
 * Event: API Gateway REST proxy event, payload format 1.0, already authorized by the bearer authorizer.
 * Takes: path parameter `petId` (int64).
 * Returns 200 with the Pet (its `status` is its inventory entry's: one item). Every response the function
 * writes carries `Deprecation` and `Sunset`; from the sunset on every request is 410 `gone`.
 * Errors: 400 `invalid_request` (bad petId), 404 `not_found` (no such pet), 410 `gone`, 503
 * `service_unavailable`. One DynamoDB request: a strongly consistent GetItem (none after the sunset).
 * Environment: `INVENTORY_TABLE_NAME`, `DEPRECATED_AT`, `SUNSET_AT` (ISO 8601, infra/settings.ts).
 */
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
