/**
 * The operation table: the one definition of the API (architecture.md "One table, three renderings").
 *
 * The CDK stack renders it as API Gateway methods and one Lambda function per entry, the local server as
 * routes calling the same handler modules, and the tests as the list of routes to probe. Paths are API
 * Gateway resource paths under the stage `v1`, so `GET /inventory` is served at `{base_url}/inventory` with
 * `base_url` ending in `/v1` (spec §9; contract.md "Addresses").
 */

/** The stage name, which is also the version prefix of every address (spec §9.1). */
export const stageName = 'v1';

/**
 * The tables: the environment variable that carries each one's name, and its partition key (name and
 * DynamoDB type: `N` number, `S` string). Used by the stack, the local server and the tools alike.
 */
export const tables = {
  inventory: { env: 'INVENTORY_TABLE_NAME', partitionKey: { name: 'petId', type: 'N' } },
  apiKeys: { env: 'API_KEYS_TABLE_NAME', partitionKey: { name: 'keyDigest', type: 'S' } },
} as const;

/** A table of {@link tables}. */
export type TableId = keyof typeof tables;

/** A Lambda function: its handler module (path from the project root) and its one permission on one table. */
export interface FunctionDefinition {
  /** Name used for the function's construct id and logs, in the spec's terms. */
  name: string;
  /** Handler module, relative to the project root; it exports `handler`. */
  entry: string;
  /** The table it reads or writes. */
  table: TableId;
  /** The only DynamoDB actions it may perform on that table (least privilege). */
  actions: readonly string[];
}

/** One API operation: a function behind a method and path, protected by the bearer authorizer. */
export interface Operation extends FunctionDefinition {
  method: 'GET' | 'PATCH';
  path: string;
}

/** The operations of the service (spec §4). Every one requires the authorizer (spec §5.1). */
export const operations: readonly Operation[] = [
  {
    name: 'listInventory',
    method: 'GET',
    path: '/inventory',
    entry: 'functions/list-inventory/handler.ts',
    table: 'inventory',
    actions: ['dynamodb:Scan'],
  },
  {
    name: 'updateInventory',
    method: 'PATCH',
    path: '/inventory/{petId}',
    entry: 'functions/update-inventory/handler.ts',
    table: 'inventory',
    actions: ['dynamodb:UpdateItem'],
  },
];

/** The TOKEN authorizer on the `Authorization` header (spec §5). */
export const authorizer: FunctionDefinition = {
  name: 'authorizer',
  entry: 'functions/authorizer/handler.ts',
  table: 'apiKeys',
  actions: ['dynamodb:GetItem'],
};

/** Seconds API Gateway (and the local stand-in) caches an authorizer's Allow per token. */
export const authorizerCacheTtlSeconds = 300;
