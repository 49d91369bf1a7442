/** The API keys table, one item per key digest: docs/contract.md "Authentication and authorization". */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Scope } from '../api.ts';
import { conditional } from '../clients/dynamodb-client.ts';

/**
 * One stored key. Times are ISO 8601 UTC strings. `scopes` absent: a key stored before scopes existed, which
 * holds every scope; `rateLimit` absent: the environment's default throttle applies; `firstKeyId` absent: the
 * key is the first of its rotation chain.
 */
export interface ApiKeyRecord {
  keyDigest: string;
  name: string;
  /** The id of the first key of its rotation chain (a key made by `rotate`): what scopes its Idempotency-Keys. */
  firstKeyId?: string;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
  lastUsedAt?: string;
  scopes?: Scope[];
  rateLimit?: number;
  burstLimit?: number;
}

/** The keys table's operations: the authorizer's lookup and last-used date, and the key tool's commands. */
export interface KeyStore {
  /** The record with this digest, or undefined: one GetItem. */
  get(keyDigest: string): Promise<ApiKeyRecord | undefined>;
  /** Stores a new record; fails (ConditionalCheckFailedException) rather than replace an existing digest. */
  put(record: ApiKeyRecord): Promise<void>;
  /** Every record (a paginated Scan: for the operator's tool, never on a request path). */
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the record with this digest revoked at `at` unless it already is. */
  revoke(keyDigest: string, at: Date): Promise<void>;
  /** Makes the key expire at `at` unless it already expires earlier (a rotated key's grace period). */
  expireBy(keyDigest: string, at: Date): Promise<void>;
  /**
   * Records `at` as the key's last use, unless a use after `notBefore` is already recorded: one conditional
   * UpdateItem, so concurrent authorizers write at most once per period.
   * @returns true when it wrote.
   */
  recordUse(keyDigest: string, at: Date, notBefore: Date): Promise<boolean>;
}

/**
 * A record as read: the project's document clients read numbers as `NumberValue` (lib/clients/document-client.ts),
 * so the throttle's numbers are converted here.
 */
function fromStored(item: Record<string, unknown>): ApiKeyRecord {
  const record = { ...item } as unknown as ApiKeyRecord;
  if (item.rateLimit !== undefined) record.rateLimit = Number(String(item.rateLimit));
  if (item.burstLimit !== undefined) record.burstLimit = Number(String(item.burstLimit));
  return record;
}

/** The key store over `client` and the table `tableName`. */
export function keyStore(client: DynamoDBDocumentClient, tableName: string): KeyStore {
  return {
    async get(keyDigest) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { keyDigest } }));
      return Item && fromStored(Item);
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
        records.push(...(page.Items ?? []).map(fromStored));
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
    async expireBy(keyDigest, at) {
      await conditional(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { keyDigest },
            UpdateExpression: 'SET expiresAt = :at',
            ConditionExpression:
              'attribute_exists(keyDigest) AND (attribute_not_exists(expiresAt) OR expiresAt > :at)',
            ExpressionAttributeValues: { ':at': at.toISOString() },
          }),
        ),
      );
    },
    recordUse(keyDigest, at, notBefore) {
      return conditional(
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { keyDigest },
            UpdateExpression: 'SET lastUsedAt = :at',
            ConditionExpression:
              'attribute_exists(keyDigest) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :notBefore)',
            ExpressionAttributeValues: { ':at': at.toISOString(), ':notBefore': notBefore.toISOString() },
          }),
        ),
      );
    },
  };
}
