/**
 * The environment the service's functions read at init, as the stack sets it, pointed at a bench DynamoDB.
 */
import { deprecationEnvironment } from '#infra/inventory-stack.ts';
import { environments } from '#infra/settings.ts';
import { operations, type TableId, tables } from '#lib/api.ts';
import { serviceName } from '#lib/service-name.ts';

/** Table names of the bench (any names work against the embedded DynamoDB): `bench-<table id>`. */
export const benchTableNames = Object.fromEntries(
  (Object.keys(tables) as TableId[]).map((id) => [id, `bench-${id}`]),
) as Readonly<Record<TableId, string>>;

/**
 * Environment variables for a function process or for handlers loaded in this process: region, static
 * credentials (the embedded DynamoDB accepts any signature), `AWS_ENDPOINT_URL_DYNAMODB`, every table-name
 * variable of lib/api.ts, the deprecation dates of staging and the Powertools variables the stack sets.
 */
export function functionEnv(endpoint: string): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    ...Object.fromEntries(
      (Object.keys(tables) as TableId[]).map((id) => [tables[id].env, benchTableNames[id]]),
    ),
    ...Object.assign({}, ...operations.map((o) => deprecationEnvironment(o, environments.staging))),
    POWERTOOLS_SERVICE_NAME: serviceName,
    POWERTOOLS_METRICS_NAMESPACE: 'PetStoreInventoryBench',
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
}
