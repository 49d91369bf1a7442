/**
 * The webhook failures table: deliveries that failed on every attempt, kept until an operator redrives them
 * (docs/contract.md "History and events"), by `endpointId` then `eventId`.
 * @module
 */
import {
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  paginateQuery,
  paginateScan,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { exactIds } from '../events/change-json.ts';
import { type DeliveryMessage, deliveryDataJson } from './delivery-message.ts';
import { endpointKey, storedEndpointId, storedEndpointIdOf, toStoredNames } from './stored-names.ts';

/**
 * A delivery kept as a failure: the message, how many attempts were made, the last attempt's HTTP status (when
 * a response came) and error, and when it was kept (RFC 3339 UTC). `data` is stored as its exact JSON text
 * (lib/events/change-json.ts), so a redrive sends exactly what the first attempts sent.
 */
export interface WebhookFailure extends DeliveryMessage {
  attempts: number;
  lastStatus?: number;
  lastError: string;
  failedAt: string;
}

/** The failures table's operations. */
export interface FailureStore {
  /** Stores (or replaces: the same event failing again for an endpoint) a failure: one PutItem. */
  put(failure: WebhookFailure): Promise<void>;
  /** Every failure, or the endpoint's only, in `eventId` order per endpoint (Scan or Query, all pages). */
  list(endpointId?: string): Promise<WebhookFailure[]>;
  /** Deletes the failure of this endpoint and event (nothing when there is none). */
  remove(endpointId: string, eventId: string): Promise<void>;
}

function toStored(failure: WebhookFailure): Record<string, unknown> {
  return toStoredNames({ ...failure, data: deliveryDataJson(failure) });
}

function fromStored(item: Record<string, unknown>): WebhookFailure {
  return {
    endpointId: storedEndpointIdOf(item),
    eventId: String(item.eventId),
    type: item.type as WebhookFailure['type'],
    timestamp: String(item.timestamp),
    data: JSON.parse(String(item.data), exactIds),
    attempts: Number(String(item.attempts)),
    ...(item.lastStatus !== undefined && { lastStatus: Number(String(item.lastStatus)) }),
    lastError: String(item.lastError),
    failedAt: String(item.failedAt),
  };
}

/**
 * The writing half of {@link failureStore} alone (the delivery function), so that its bundle carries no Scan,
 * Query or DeleteItem (docs/architecture.md "Bundles").
 */
export function failureWriter(client: DynamoDBClient, tableName: string): Pick<FailureStore, 'put'> {
  return {
    async put(failure) {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: marshall(toStored(failure), { removeUndefinedValues: true }),
        }),
      );
    },
  };
}

/**
 * The failure store over `client` and the table `tableName` (the low-level client with util-dynamodb's
 * marshalling, as {@link import('./endpoint-store.ts').endpointStore}).
 */
export function failureStore(client: DynamoDBClient, tableName: string): FailureStore {
  return {
    ...failureWriter(client, tableName),
    async list(endpointId) {
      const pages =
        endpointId === undefined
          ? paginateScan({ client }, { TableName: tableName })
          : paginateQuery(
              { client },
              {
                TableName: tableName,
                KeyConditionExpression: `${storedEndpointId} = :id`,
                ExpressionAttributeValues: marshall({ ':id': endpointId }),
              },
            );
      const failures: WebhookFailure[] = [];
      for await (const page of pages)
        for (const item of page.Items ?? []) failures.push(fromStored(unmarshall(item)));
      return failures;
    },
    async remove(endpointId, eventId) {
      await client.send(
        new DeleteItemCommand({
          TableName: tableName,
          Key: marshall({ ...endpointKey(endpointId), eventId }),
        }),
      );
    },
  };
}
