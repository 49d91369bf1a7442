/**
 * The API keys table: one item per key, partition key `keyDigest` (String, SHA-256 hex of the key), with
 * `name`, `createdAt` and optional `expiresAt` / `revokedAt` (ISO 8601 UTC). The key itself is never stored
 * (docs/contract.md "Authentication").
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

/** One stored key. Times are ISO 8601 UTC strings. */
export interface ApiKeyRecord {
  keyDigest: string;
  name: string;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
}

/** The keys table's operations: the authorizer's lookup and the key tool's create / list / revoke. */
export interface KeyStore {
  /** The record with this digest, or undefined: one GetItem. */
  get(keyDigest: string): Promise<ApiKeyRecord | undefined>;
  /** Stores a new record; fails (ConditionalCheckFailedException) rather than replace an existing digest. */
  put(record: ApiKeyRecord): Promise<void>;
  /** Every record (a paginated Scan: for the operator's tool, never on a request path). */
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the record with this digest revoked at `at` unless it already is. */
  revoke(keyDigest: string, at: Date): Promise<void>;
}

/** The key store over `client` and the table `tableName`. */
export function keyStore(client: DynamoDBDocumentClient, tableName: string): KeyStore {
  return {
    async get(keyDigest) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { keyDigest } }));
      return Item as ApiKeyRecord | undefined;
    },
    async put(record) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: record,
          ConditionExpression: 'attribute_not_exists(keyDigest)',
        }),
      );
    },
    async list() {
      const records: ApiKeyRecord[] = [];
      for await (const page of paginateScan({ client }, { TableName: tableName })) {
        records.push(...((page.Items ?? []) as ApiKeyRecord[]));
      }
      return records;
    },
    async revoke(keyDigest, at) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { keyDigest },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(keyDigest)',
          ExpressionAttributeValues: { ':at': at.toISOString() },
        }),
      );
    },
  };
}
