/** listInventory, `GET /v1/inventory` (proxy event 1.0, streamed): docs/contract.md "Inventory semantics". */
import { Readable } from 'node:stream';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { operationNamed } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { streamingHttpFunction } from '#lib/http/http-function.ts';
import { jsonHeaders } from '#lib/http/responses.ts';
import { type InventoryItem, inventoryJson } from '#lib/inventory/inventory-item.ts';
import { encodeCursor, type ListQuery, parseListQuery } from '#lib/inventory/list-query.ts';
import { maxQueryItems } from '#lib/inventory/sorted-list.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { logger } from '#lib/logger.ts';
import { metrics } from '#lib/metrics.ts';
import { listIndex, tables } from '#lib/tables.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));

/** Publishes the list's size once its last entry is written. */
function publishListSize(count: number): void {
  metrics.addMetric('InventoryListSize', MetricUnit.Count, count);
  metrics.publishStoredMetrics();
}

/** The JSON array text of `first` and the batches that follow, closed only after the last batch. */
async function* jsonArray(
  first: InventoryItem[],
  rest: AsyncGenerator<InventoryItem[]>,
): AsyncGenerator<string> {
  let count = first.length;
  let separator = '[';
  if (first.length > 0) {
    yield `[${inventoryJson(first).slice(1, -1)}`;
    separator = ',';
  }
  try {
    for await (const batch of rest) {
      count += batch.length;
      yield `${separator}${inventoryJson(batch).slice(1, -1)}`;
      separator = ',';
    }
  } catch (error) {
    logger.error('list stream failed', { errorName: (error as Error)?.name });
    throw error;
  }
  yield separator === '[' ? '[]' : ']';
  publishListSize(count);
}

/**
 * One page of at most `limit` entries and, when more follow, the `Link` of the next page: a reference relative
 * to the request's host (`path` is the path the client called, stage or base path included, RFC 8288 §3.1).
 */
async function page(query: ListQuery & { limit: number }, path: string) {
  const entries: InventoryItem[] = [];
  const queryLimit = Math.min(maxQueryItems, Math.ceil((2 * (query.limit + 1)) / listIndex.shards) + 1);
  for await (const batch of store.listSorted({ ...query, queryLimit })) {
    entries.push(...batch);
    if (entries.length > query.limit) break;
  }
  const headers: Record<string, string> = { ...jsonHeaders };
  if (entries.length > query.limit) {
    entries.length = query.limit;
    const next = new URLSearchParams({ limit: String(query.limit) });
    if (query.status) next.set('status', query.status);
    next.set('cursor', encodeCursor((entries.at(-1) as InventoryItem).petId, query.status));
    headers.Link = `<${path}?${next}>; rel="next"`;
  }
  publishListSize(entries.length);
  return { statusCode: 200, headers, body: inventoryJson(entries) };
}

/** The Lambda handler. */
export const handler = streamingHttpFunction(operationNamed('listInventory')).handler(async (event) => {
  const query = parseListQuery(event.multiValueQueryStringParameters);
  if (query.limit !== undefined) {
    return page({ ...query, limit: query.limit }, event.requestContext.path);
  }
  const batches = store.listSorted(query);
  const first = await batches.next();
  return {
    statusCode: 200,
    headers: { ...jsonHeaders },
    body: Readable.from(jsonArray(first.done ? [] : first.value, batches)),
  };
});
