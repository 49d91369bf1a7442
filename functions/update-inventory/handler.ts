/** updateInventory, `PATCH /v1/inventory/{petId}` (proxy 1.0): docs/contract.md "Inventory semantics". */
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { callerKeyId } from '#lib/http/caller.ts';
import { HttpError, notFound } from '#lib/http/errors.ts';
import { headerValues } from '#lib/http/headers.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonBody } from '#lib/http/json-body.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { entityTag, parseIfMatch } from '#lib/inventory/entity-tag.ts';
import { inventoryJson } from '#lib/inventory/inventory-item.ts';
import { parseInventoryUpdate } from '#lib/inventory/inventory-update.ts';
import { parsePetId } from '#lib/inventory/pet-id.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { tables } from '#lib/tables.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('updateInventory'))
  .use(jsonBody())
  .handler(async (event) => {
    const petId = parsePetId(event.pathParameters?.petId);
    const update = parseInventoryUpdate(event.body);
    const ifMatch = parseIfMatch(headerValues(event, 'If-Match'));
    const keyId = callerKeyId(event);
    const result = await store.update(
      petId,
      { ...update, ...(keyId === undefined ? {} : { keyId }) },
      ifMatch,
    );
    if (result === 'not_found') throw notFound(`no inventory entry for petId ${petId}`);
    if (result === 'precondition_failed') {
      throw new HttpError(
        'precondition_failed',
        `If-Match does not match the current entry of petId ${petId}`,
      );
    }
    return jsonResponse(200, inventoryJson(result), { ETag: entityTag(result) });
  });
