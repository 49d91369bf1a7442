/**
 * updateInventory: `PATCH /v1/inventory/{petId}` (docs/service-spec.md §4.2, experimental).
 *
 * Event: API Gateway REST proxy event, payload format 1.0, already authorized by the bearer authorizer.
 * Takes: path parameter `petId` (int64) and a JSON InventoryUpdate body `{"quantity": n}`.
 * Returns 200 with the updated InventoryItem; `status` is left unchanged (docs/contract.md "Semantics").
 * Errors: 400 `invalid_request` (bad petId, body or content type; rule 1), 404 `not_found` (no entry for
 * petId; rule 2), 503 `service_unavailable`. Exactly one DynamoDB request: a conditional UpdateItem.
 * Metric: `InventoryUpdated` (Count, 1 per successful update).
 * Environment: `INVENTORY_TABLE_NAME`, `POWERTOOLS_METRICS_NAMESPACE`.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { operationNamed, tables } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { notFound } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { jsonBody } from '#lib/http/json-body.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { inventoryJson } from '#lib/inventory/inventory-item.ts';
import { parseInventoryUpdate } from '#lib/inventory/inventory-update.ts';
import { parsePetId } from '#lib/inventory/pet-id.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { metrics } from '#lib/metrics.ts';

const store = inventoryStore(documentClient, requiredEnv(tables.inventory.env));

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('updateInventory'))
  .use(logMetrics(metrics))
  .use(jsonBody())
  .handler(async (event) => {
    const petId = parsePetId(event.pathParameters?.petId);
    const { quantity } = parseInventoryUpdate(event.body);
    const item = await store.setQuantity(petId, quantity);
    if (!item) throw notFound(`no inventory entry for petId ${petId}`);
    metrics.addMetric('InventoryUpdated', MetricUnit.Count, 1);
    return jsonResponse(200, inventoryJson(item));
  });
