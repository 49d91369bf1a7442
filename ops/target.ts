import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { connectLocalDynamoDb, dataFolderCredentials, localAwsEndpoint } from '@pet-store/local-aws';
import { Option } from 'commander';
import {
  type EnvironmentName,
  type EnvironmentSettings,
  environments,
  stackName as stackNameOf,
} from '#infra/settings.ts';
import { type GatewayKeys, gatewayKeys } from '#lib/admin/gateway-keys.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { dynamoDbClientConfig } from '#lib/clients/dynamodb.ts';
import type { TableId } from '#lib/tables.ts';
import { localAwsDefaults, localDataDir, localEnvironment, localTableNames } from '#local/settings.ts';

/** The tools' `--env <environment>` option: one of the deployed environments of infra/settings.ts. */
export function environmentOption(description = 'a deployed environment instead of the local store'): Option {
  return new Option('--env <environment>', description).choices(Object.keys(environments));
}

/** The tables a tool works on, and how to let go of them. */
export interface Target {
  client: DynamoDBDocumentClient;
  /** The low-level client under {@link client}. */
  raw: DynamoDBClient;
  tables: Record<ToolTableId, string>;
  /** Human-readable: `local store .data` or `stack InventoryService-staging`. */
  description: string;
  /** The environment's settings (key defaults); the local store has the local API's. */
  settings: EnvironmentSettings;
  /**
   * The keys' API Gateway side in a deployed environment (lib/admin/gateway-keys.ts); undefined for the local store.
   * @throws Error when the stack has no `RestApiId` / `UsagePlanId` output (deployed before per-key throttling).
   */
  gatewayKeys(): GatewayKeys | undefined;
  /**
   * The webhook delivery queue (the webhook tool's `redrive`): an SQS client and the queue's URL. Deployed: the
   * output `WebhookDeliveryQueueUrl`; locally: the running local service's AWS endpoint (`<dataDir>/aws-endpoint`).
   * @throws Error when the stack has no such output, or the local service is not running (its queues live in it).
   */
  deliveryQueue(): Promise<{ sqs: SQSClient; url: string }>;
  /**
   * The stream mappings' on-failure queue (the webhook tool's `lost`), as {@link deliveryQueue}: deployed, the
   * output `ChangeRecordsFailureQueueUrl`; locally, the local service's queue `ChangeRecordsFailureQueue`.
   * @throws Error when the stack has no such output, or the local service is not running (its queues live in it).
   */
  changeRecordsFailureQueue(): Promise<{ sqs: SQSClient; url: string }>;
  close(): Promise<void>;
}

/** The tables the operator tools work on. */
export type ToolTableId = Extract<
  TableId,
  | 'inventory'
  | 'apiKeys'
  | 'inventoryHistory'
  | 'webhookEndpoints'
  | 'webhookFailures'
  | 'webhookEndpointOwners'
  | 'webhookAttempts'
>;

/**
 * Stack output names holding each table's name (infra/inventory-stack.ts). A table is looked up when a tool
 * first uses it, so a stack deployed before a table existed still serves the tools of the other tables.
 */
const tableOutputs: Record<ToolTableId, string> = {
  inventory: 'InventoryTableName',
  apiKeys: 'ApiKeysTableName',
  inventoryHistory: 'InventoryHistoryTableName',
  webhookEndpoints: 'WebhookSubscriptionsTableName',
  webhookFailures: 'WebhookFailuresTableName',
  webhookEndpointOwners: 'WebhookEndpointOwnersTableName',
  webhookAttempts: 'WebhookAttemptsTableName',
};

/** The stack outputs holding the queues' URLs the tools use, by the queue's logical id (its local name). */
const queueOutputs = {
  WebhookDeliveryQueue: 'WebhookDeliveryQueueUrl',
  ChangeRecordsFailureQueue: 'ChangeRecordsFailureQueueUrl',
} as const;

/**
 * The local delivery queue's name, asked of the local AWS endpoint with GetQueueUrl (the local service names a
 * queue of the served template after it); `WEBHOOK_DELIVERY_QUEUE_URL` overrides the lookup.
 */
export const localDeliveryQueueName = 'WebhookDeliveryQueue';

async function deployedTarget(environment: EnvironmentName): Promise<Target> {
  const stackName = stackNameOf(environment);
  const { Stacks } = await new CloudFormationClient({}).send(
    new DescribeStacksCommand({ StackName: stackName }),
  );
  const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const table = (id: ToolTableId) => {
    const name = outputs.get(tableOutputs[id]);
    if (!name) throw new Error(`stack ${stackName} has no output ${tableOutputs[id]}: is it deployed?`);
    return name;
  };
  const raw = new DynamoDBClient({ ...dynamoDbClientConfig });
  const client = toDocumentClient(raw);
  const apiGateway = new APIGatewayClient({});
  const tables = {} as Record<ToolTableId, string>;
  for (const id of Object.keys(tableOutputs) as ToolTableId[]) {
    Object.defineProperty(tables, id, { enumerable: true, get: () => table(id) });
  }
  table('inventory');
  table('apiKeys');
  let sqs: SQSClient | undefined;
  const queue = async (id: keyof typeof queueOutputs) => {
    const url = outputs.get(queueOutputs[id]);
    if (!url)
      throw new Error(`stack ${stackName} has no output ${queueOutputs[id]}: deploy the current version`);
    sqs ??= new SQSClient({});
    return { sqs, url };
  };
  return {
    client,
    raw,
    tables,
    description: `stack ${stackName}`,
    settings: environments[environment],
    gatewayKeys() {
      const restApiId = outputs.get('RestApiId');
      const defaultUsagePlanId = outputs.get('UsagePlanId');
      if (!restApiId || !defaultUsagePlanId) {
        throw new Error(
          `stack ${stackName} has no outputs RestApiId and UsagePlanId: deploy the current version`,
        );
      }
      return gatewayKeys(apiGateway, { stackName, restApiId, defaultUsagePlanId });
    },
    async deliveryQueue() {
      return queue('WebhookDeliveryQueue');
    },
    async changeRecordsFailureQueue() {
      return queue('ChangeRecordsFailureQueue');
    },
    close: async () => {
      client.destroy();
      apiGateway.destroy();
      sqs?.destroy();
    },
  };
}

async function localTarget(): Promise<Target> {
  localAwsDefaults();
  const dataDir = localDataDir();
  const db = process.env.AWS_ENDPOINT_URL_DYNAMODB ? undefined : await connectLocalDynamoDb(dataDir);
  const raw = new DynamoDBClient({
    ...dynamoDbClientConfig,
    ...(db ? { endpoint: db.endpoint, credentials: db.credentials } : {}),
  });
  const tables = localTableNames();
  const description = db ? `local store ${dataDir}` : `DynamoDB at ${process.env.AWS_ENDPOINT_URL_DYNAMODB}`;
  try {
    await raw.send(new DescribeTableCommand({ TableName: tables.inventory }));
  } catch (error) {
    raw.destroy();
    await db?.close();
    if (error instanceof ResourceNotFoundException) {
      throw new Error('the local store has no tables yet: run `npm start` once first');
    }
    throw new Error(`cannot use the ${description}: ${(error as Error).message}`);
  }
  const client = toDocumentClient(raw);
  let sqs: SQSClient | undefined;
  /** The local queue `QueueName` (a queue of the served template is named after its logical id). */
  const queue = async (QueueName: string) => {
    sqs ??= await localSqsClient(dataDir);
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName }));
    if (!QueueUrl) throw new Error(`the local service has no queue ${QueueName}`);
    return { sqs, url: QueueUrl };
  };
  return {
    client,
    raw,
    tables,
    description,
    settings: localEnvironment,
    gatewayKeys: () => undefined,
    async deliveryQueue() {
      const configured = process.env.WEBHOOK_DELIVERY_QUEUE_URL;
      if (!configured) return queue(localDeliveryQueueName);
      sqs ??= await localSqsClient(dataDir);
      return { sqs, url: configured };
    },
    async changeRecordsFailureQueue() {
      return queue('ChangeRecordsFailureQueue');
    },
    async close() {
      client.destroy();
      sqs?.destroy();
      await db?.close();
    },
  };
}

/**
 * An SQS client on the local AWS endpoint: `AWS_ENDPOINT_URL_SQS` when set (credentials from the environment),
 * else the running local service's endpoint (`<dataDir>/aws-endpoint`) with the data folder's credentials.
 * @throws Error when neither is there: the local queues live in the running service.
 */
async function localSqsClient(dataDir: string): Promise<SQSClient> {
  if (process.env.AWS_ENDPOINT_URL_SQS) return new SQSClient({});
  const endpoint = await localAwsEndpoint(dataDir);
  if (!endpoint) {
    throw new Error('the local service is not running: start it with `npm start` (its queues live in it)');
  }
  return new SQSClient({ endpoint, credentials: await dataFolderCredentials(dataDir) });
}

/** Opens the target: the deployed `environment` when given, else the local store. */
export function openTarget(environment?: EnvironmentName): Promise<Target> {
  return environment ? deployedTarget(environment) : localTarget();
}

/**
 * Runs `work` against the target of `environment` (the local store when absent, as `openTarget`), closing the
 * target afterwards whether `work` answers or throws; answers what `work` answers.
 */
export async function withTarget<T>(
  environment: EnvironmentName | undefined,
  work: (target: Target) => Promise<T>,
): Promise<T> {
  const target = await openTarget(environment);
  try {
    return await work(target);
  } finally {
    await target.close();
  }
}
