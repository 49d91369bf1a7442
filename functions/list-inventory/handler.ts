/**
 * listInventory: `GET /v1/inventory` (docs/service-spec.md §4.1).
 *
 * Event: API Gateway REST proxy event, payload format 1.0, already authorized by the bearer authorizer.
 * Returns 200 with a JSON array of InventoryItem, every entry, sorted by petId ascending (docs/contract.md
 * "Semantics"). Errors: 503 `service_unavailable` when DynamoDB is unreachable; 401 is the authorizer's.
 * Metric: `InventoryListSize` (Count), the number of entries returned.
 * Environment: `INVENTORY_TABLE_NAME`, `POWERTOOLS_METRICS_NAMESPACE`.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { operationNamed, tables } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { inventoryJson } from '#lib/inventory/inventory-item.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { metrics } from '#lib/metrics.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('listInventory'))
  .use(logMetrics(metrics))
  .handler(async () => {
    const items = await store.list();
    metrics.addMetric('InventoryListSize', MetricUnit.Count, items.length);
    return jsonResponse(200, inventoryJson(items));
  });
