/** listInventory, `GET /v1/inventory` (proxy event 1.0, streamed): docs/contract.md "Inventory semantics". */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { streamingHttpFunction } from '#lib/http/http-function.ts';
import { jsonHeaders } from '#lib/http/responses.ts';
import { inventoryJson } from '#lib/inventory/inventory-item.ts';
import { parseListQuery } from '#lib/inventory/list-query.ts';
import { listPage, listStream } from '#lib/inventory/list-response.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { metrics } from '#lib/metrics.ts';
import { tables } from '#lib/tables.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));

/** Publishes the list's size once its last entry is written. */
function publishListSize(count: number): void {
  metrics.addMetric('InventoryListSize', MetricUnit.Count, count);
  metrics.publishStoredMetrics();
}

/**
 * The Lambda handler: with `petIds`, the entries of those ids; with `limit`, one page and, when more follow, the
 * `Link` of the next page as a reference relative to the request's host (the path the client called, stage or
 * base path included, RFC 8288 §3.1); without, the whole list streamed.
 */
export const handler = streamingHttpFunction(operationNamed('listInventory')).handler(async (event) => {
  const query = parseListQuery(event.multiValueQueryStringParameters);
  if ('petIds' in query) {
    const items = await store.getMany(query.petIds);
    publishListSize(items.length);
    return { statusCode: 200, headers: { ...jsonHeaders }, body: inventoryJson(items) };
  }
  if (query.limit === undefined) {
    return {
      statusCode: 200,
      headers: { ...jsonHeaders },
      body: await listStream(store, query, publishListSize),
    };
  }
  const { items, next } = await listPage(store, { ...query, limit: query.limit });
  const headers: Record<string, string> = { ...jsonHeaders };
  if (next !== undefined) headers.Link = `<${event.requestContext.path}?${next}>; rel="next"`;
  publishListSize(items.length);
  return { statusCode: 200, headers, body: inventoryJson(items) };
});
