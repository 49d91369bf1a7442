/** getInventoryItem, `GET /v1/inventory/{petId}` (proxy 1.0): docs/contract.md "Inventory semantics". */
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { entityTag } from '#lib/inventory/entity-tag.ts';
import { inventoryJson } from '#lib/inventory/inventory-item.ts';
import { parsePetId } from '#lib/inventory/pet-id.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { tables } from '#lib/tables.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('getInventoryItem')).handler(async (event) => {
  const petId = parsePetId(event.pathParameters?.petId);
  const item = await store.get(petId);
  if (!item) throw notFound(`no inventory entry for petId ${petId}`);
  return jsonResponse(200, inventoryJson(item), { ETag: entityTag(item) });
});
