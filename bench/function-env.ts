/**
 * The environment the service's functions read at init, as the stack sets it, pointed at a bench DynamoDB.
 */
import { tables } from '#lib/api.ts';

/** Table names of the bench (any names work against the embedded DynamoDB). */
export const benchTableNames = { inventory: 'bench-inventory', apiKeys: 'bench-api-keys' } as const;

/**
 * Environment variables for a function process or for handlers loaded in this process: region, static
 * credentials (the embedded DynamoDB accepts any signature), `AWS_ENDPOINT_URL_DYNAMODB`, the table-name
 * variables of lib/api.ts and the Powertools variables the stack sets.
 */
export function functionEnv(endpoint: string): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    [tables.inventory.env]: benchTableNames.inventory,
    [tables.apiKeys.env]: benchTableNames.apiKeys,
    POWERTOOLS_SERVICE_NAME: 'pet-store-inventory',
    POWERTOOLS_METRICS_NAMESPACE: 'PetStoreInventoryBench',
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
}
