/** The service's DynamoDB tables, one per lib/tables.ts `tables` row (docs/architecture.md "Data layout"). */
import { type CfnResource, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { type KeyAttribute, type TableDefinition, type TableId, tables } from '#lib/tables.ts';
import type { EnvironmentSettings } from './settings.ts';

/**
 * The CloudFormation logical id (and construct id) of a table of lib/tables.ts: `InventoryTable`, `ApiKeysTable`;
 * from its `storedName` when it has one (`WebhookSubscriptionsTable`).
 */
export function tableLogicalId(table: TableId): string {
  const stored = (tables[table] as TableDefinition).storedName;
  return `${stored ?? `${table[0]?.toUpperCase()}${table.slice(1)}`}Table`;
}

/**
 * The tables whose name the stack outputs (as `<logical id>Name`), each with what it holds and the tool that
 * reads the output, in the outputs' order.
 */
const tableOutputs: Readonly<Partial<Record<TableId, { holds: string; readBy?: string }>>> = {
  inventory: { holds: 'Inventory table', readBy: 'the import tool' },
  apiKeys: { holds: 'API keys table', readBy: 'the key tool' },
  inventoryHistory: { holds: 'Change records of the inventory' },
  webhookEndpoints: { holds: 'Webhook endpoints', readBy: 'the webhook tool' },
  webhookFailures: { holds: 'Webhook deliveries that failed for good', readBy: 'the webhook tool' },
  webhookEndpointOwners: { holds: 'The webhook endpoints each API key holds', readBy: 'the webhook tool' },
  webhookAttempts: { holds: 'Webhook delivery attempts', readBy: 'the webhook tool' },
};

/** A stack output: its value and description. */
export interface OutputValue {
  value: string;
  description: string;
}

/** Properties of {@link ServiceTables}. */
export interface ServiceTablesProps {
  /** The environment's settings (point-in-time recovery, deletion protection). */
  settings: EnvironmentSettings;
  /** What happens to a table when it leaves the stack. */
  removalPolicy: RemovalPolicy;
}

/** A DynamoDB key attribute of lib/tables.ts as CDK takes it. */
function attribute({ name, type }: KeyAttribute) {
  return { name, type: type === 'N' ? AttributeType.NUMBER : AttributeType.STRING };
}

/**
 * Every table of lib/tables.ts: on demand, AWS-managed encryption, its indexes, stream and time to live. Each
 * table is the stack's own child with the logical id {@link tableLogicalId}: a table's logical id is its
 * identity (another one replaces it, and its data is lost), so grouping them here changes neither.
 */
export class ServiceTables extends Construct {
  /** The tables, by lib/tables.ts id. */
  readonly tables: Readonly<Record<TableId, Table>>;

  constructor(scope: Construct, id: string, props: ServiceTablesProps) {
    super(scope, id);
    const { settings, removalPolicy } = props;
    const table = (tableId: TableId) => {
      const { partitionKey, sortKey, globalIndexes, timeToLiveAttribute, stream } = tables[
        tableId
      ] as TableDefinition;
      const created = new Table(scope, tableLogicalId(tableId), {
        partitionKey: attribute(partitionKey),
        ...(sortKey ? { sortKey: attribute(sortKey) } : {}),
        ...(stream ? { stream: StreamViewType.NEW_AND_OLD_IMAGES } : {}),
        ...(timeToLiveAttribute ? { timeToLiveAttribute } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        encryption: TableEncryption.AWS_MANAGED,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: settings.pointInTimeRecovery },
        deletionProtection: settings.deletionProtection,
        removalPolicy,
      });
      for (const index of globalIndexes) {
        created.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: attribute(index.partitionKey),
          sortKey: attribute(index.sortKey),
          projectionType: ProjectionType.INCLUDE,
          nonKeyAttributes: [...index.nonKeyAttributes],
        });
      }
      (created.node.defaultChild as CfnResource).overrideLogicalId(tableLogicalId(tableId));
      if (!settings.pointInTimeRecovery) {
        Validations.of(created).acknowledge({
          id: 'AwsSolutions-DDB3',
          reason: `The ${settings.name} environment holds disposable test data re-created with the import and key tools; point-in-time recovery is on in production.`,
        });
      }
      return created;
    };
    this.tables = Object.fromEntries(
      (Object.keys(tables) as TableId[]).map((tableId) => [tableId, table(tableId)]),
    ) as Record<TableId, Table>;
  }

  /** The tables with a stream (lib/tables.ts `stream`), by logical id. */
  get streams(): Record<string, Table> {
    return Object.fromEntries(
      (Object.keys(tables) as TableId[])
        .filter((tableId) => (tables[tableId] as TableDefinition).stream)
        .map((tableId) => [tableLogicalId(tableId), this.tables[tableId]]),
    );
  }

  /** The outputs of the tables' names the tools read (`InventoryTableName`...), by output name. */
  get outputs(): Record<string, OutputValue> {
    return Object.fromEntries(
      Object.entries(tableOutputs).map(([tableId, { holds, readBy }]) => {
        const { env } = tables[tableId as TableId];
        return [
          `${tableLogicalId(tableId as TableId)}Name`,
          {
            value: this.tables[tableId as TableId].tableName,
            description: `${holds} (${env})${readBy ? `, for ${readBy}` : ''}`,
          },
        ];
      }),
    );
  }
}
