/**
 * listInventoryHistory, `GET /v1/inventory/{petId}/history` (proxy event 1.0; experimental): docs/contract.md
 * "History and events". A JSON array of the entry's InventoryChanges, newest first, in pages linked by `Link`
 * rel="next"; 404 when the pet has no inventory entry.
 */
import { operationNamed, stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { historyJson } from '#lib/events/change-json.ts';
import { historyPage } from '#lib/events/history-store.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { parseLimit } from '#lib/http/page-limit.ts';
import { ownValue } from '#lib/http/request-parameters.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { getEntry, projection } from '#lib/inventory/entry-store.ts';
import { historyCursor, parseHistoryCursor } from '#lib/inventory/history-cursor.ts';
import { parsePetId } from '#lib/inventory/pet-id.ts';
import { tables } from '#lib/tables.ts';

const inventoryTable = requiredEnv(tables.inventory.env);
const historyTable = requiredEnv(tables.inventoryHistory.env);
/** The existence check reads the key only. */
const keyOnly = projection(['petId']);

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('listInventoryHistory')).handler(async (event) => {
  const petId = parsePetId(event.pathParameters?.petId);
  const query = event.queryStringParameters;
  const limit = parseLimit(ownValue(query, 'limit'));
  // Validation before existence (docs/contract.md "Authentication and authorization": order of checks).
  const below = parseHistoryCursor(ownValue(query, 'cursor'));
  // Both reads at once, each settled before the answer: no request of this invocation outlives it.
  const [entry, page] = await Promise.allSettled([
    getEntry(documentClient, inventoryTable, petId, keyOnly),
    historyPage(documentClient, historyTable, petId, {
      limit,
      ...(below === undefined ? {} : { cursor: below }),
    }),
  ]);
  if (entry.status === 'rejected') throw entry.reason;
  if (!entry.value) throw notFound(`no inventory entry for petId ${petId}`);
  if (page.status === 'rejected') throw page.reason;
  const { items, next } = page.value;
  const link: Record<string, string> =
    next === undefined
      ? {}
      : {
          Link: `</${stageName}/inventory/${petId}/history?limit=${limit}&cursor=${historyCursor(next)}>; rel="next"`,
        };
  return jsonResponse(200, historyJson(items), link);
});
