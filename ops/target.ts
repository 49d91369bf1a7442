/** Where an operator tool works, the local store or a deployed stack's tables: docs/operating.md "Operator tools". */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Option } from 'commander';
import {
  type EnvironmentName,
  type EnvironmentSettings,
  environments,
  stackName as stackNameOf,
} from '#infra/settings.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { dynamoDbClientConfig } from '#lib/clients/dynamodb.ts';
import type { TableId } from '#lib/tables.ts';
import { connectLocalDynamoDb, localTableNames } from '#local-api/dynamodb.ts';
import { localAwsDefaults, localDataDir, localEnvironment } from '#local-api/settings.ts';
import { type GatewayKeys, gatewayKeys } from './admin/gateway-keys.ts';

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
   * The keys' API Gateway side in a deployed environment (ops/admin/gateway-keys.ts); undefined for the local store.
   * @throws Error when the stack has no `RestApiId` / `UsagePlanId` output (deployed before per-key throttling).
   */
  gatewayKeys(): GatewayKeys | undefined;
  close(): Promise<void>;
}

/** The tables the operator tools work on. */
export type ToolTableId = Extract<TableId, 'inventory' | 'apiKeys'>;

/** Stack output names holding each table's name (infra/inventory-stack.ts). */
const tableOutputs: Record<ToolTableId, string> = {
  inventory: 'InventoryTableName',
  apiKeys: 'ApiKeysTableName',
};

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
  return {
    client,
    raw,
    tables: { inventory: table('inventory'), apiKeys: table('apiKeys') },
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
    close: async () => {
      client.destroy();
      apiGateway.destroy();
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
  return {
    client,
    raw,
    tables,
    description,
    settings: localEnvironment,
    gatewayKeys: () => undefined,
    async close() {
      client.destroy();
      await db?.close();
    },
  };
}

/** Opens the target: the deployed `environment` when given, else the local store. */
export function openTarget(environment?: EnvironmentName): Promise<Target> {
  return environment ? deployedTarget(environment) : localTarget();
}
