/** The service's stack, one class per environment (docs/service-spec.md §9.2), everything from lib/api.ts. */
import { CfnOutput, type CfnResource, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  authorizer,
  eventFunctions,
  type FunctionDefinition,
  type Operation,
  operationNamed,
  operations,
  tablesOf,
} from '#lib/api.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { corsOriginsEnv } from '#lib/http/cors.ts';
import { deprecationEnv } from '#lib/pets/deprecation.ts';
import { serviceName } from '#lib/service-name.ts';
import { type KeyAttribute, type TableDefinition, type TableId, tables } from '#lib/tables.ts';
import { ChangeEvents, deployedAwsEndpoint, eventFunctionSizing } from './change-events.ts';
import { GradualDeployment } from './gradual-deployment.ts';
import { InventoryApi } from './inventory-api.ts';
import { ServiceAlarms } from './service-alarms.ts';
import { ServiceFunction } from './service-function.ts';
import type { EnvironmentSettings } from './settings.ts';

/** Properties of an {@link InventoryStack}. */
export interface InventoryStackProps extends StackProps {
  /** The environment's settings: the only input that differs between staging and production. */
  settings: EnvironmentSettings;
}

/**
 * The CloudFormation logical id of a function of lib/api.ts: its name in PascalCase + `Function`
 * (`listInventory` -> `ListInventoryFunction`, `authorizer` -> `AuthorizerFunction`).
 */
export function functionLogicalId(definition: FunctionDefinition): string {
  return `${definition.name[0]?.toUpperCase()}${definition.name.slice(1)}Function`;
}

/** The CloudFormation logical id (and construct id) of a table of lib/api.ts: `InventoryTable`, `ApiKeysTable`. */
export function tableLogicalId(table: TableId): string {
  return `${table[0]?.toUpperCase()}${table.slice(1)}Table`;
}

/** `DEPRECATED_AT` and `SUNSET_AT` from the settings for a deprecated operation (lib/api.ts `deprecated`), else none. */
export function deprecationEnvironment(
  definition: FunctionDefinition,
  settings: EnvironmentSettings,
): Record<string, string> {
  if (!('deprecated' in definition) || !definition.deprecated) return {};
  return {
    [deprecationEnv.deprecatedAt]: settings.deprecation.deprecatedAt,
    [deprecationEnv.sunsetAt]: settings.deprecation.sunsetAt,
  };
}

/** The value of `AWS_ENDPOINT_URL_DYNAMODB` on deployed functions: empty, so the SDK uses the regional endpoint. */
export const deployedDynamoDbEndpoint = '';

/** The functions AWS invokes rather than the API (lib/api.ts `eventFunctions`): the streams', bus's and queue's. */
const eventDefinitions: readonly FunctionDefinition[] = Object.values(eventFunctions);

/** The stack: tables, functions, API, events, alarms and gradual deployment of one environment's settings. */
export class InventoryStack extends Stack {
  /** The tables of lib/api.ts `tables`. */
  readonly tables: Readonly<Record<TableId, Table>>;
  /** The function of each definition of lib/api.ts (`operations`, `authorizer` and `eventFunctions`). */
  readonly functions: ReadonlyMap<FunctionDefinition, ServiceFunction>;
  /** The REST API. */
  readonly api: InventoryApi;
  /** The change records' streams mappings, event bus, rule and webhook queues. */
  readonly events: ChangeEvents;

  constructor(scope: Construct, id: string, props: InventoryStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const removalPolicy = settings.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    const attribute = ({ name, type }: KeyAttribute) => ({
      name,
      type: type === 'N' ? AttributeType.NUMBER : AttributeType.STRING,
    });
    const table = (tableId: TableId) => {
      const { partitionKey, sortKey, globalIndexes, timeToLiveAttribute, stream } = tables[
        tableId
      ] as TableDefinition;
      const created = new Table(this, tableLogicalId(tableId), {
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
    const tableIds = Object.keys(tables) as TableId[];
    this.tables = Object.fromEntries(tableIds.map((tableId) => [tableId, table(tableId)])) as Record<
      TableId,
      Table
    >;

    const functions = new Map<FunctionDefinition, ServiceFunction>();
    const isEventFunction = (definition: FunctionDefinition) => eventDefinitions.includes(definition);
    for (const definition of [...operations, authorizer, ...eventDefinitions]) {
      const fn = new ServiceFunction(this, functionLogicalId(definition), {
        entry: definition.entry,
        description: `Pet store inventory ${definition.name} (${settings.name})`,
        environment: {
          POWERTOOLS_SERVICE_NAME: serviceName,
          POWERTOOLS_LOG_LEVEL: settings.logLevel,
          POWERTOOLS_METRICS_NAMESPACE: settings.metricsNamespace,
          AWS_ENDPOINT_URL_DYNAMODB: deployedDynamoDbEndpoint,
          ...(settings.corsAllowedOrigins.length > 0 && operations.includes(definition as Operation)
            ? { [corsOriginsEnv]: settings.corsAllowedOrigins.join(',') }
            : {}),
          ...deprecationEnvironment(definition, settings),
          // The SSRF guard's deployed policy, as the deliveries' (infra/change-events.ts).
          ...(definition === operationNamed('createWebhookEndpoint')
            ? { [eventsEnv.urlPolicy]: 'public-https' }
            : {}),
        },
        logRetention: settings.logRetentionDays,
        logRemovalPolicy: removalPolicy,
        sizing: isEventFunction(definition)
          ? eventFunctionSizing[definition.name as keyof typeof eventFunctionSizing]
          : (definition as Partial<Operation>).streaming,
        reservedConcurrency: settings.reservedConcurrency,
        readsStreams: definition === eventFunctions.recordChanges,
      });
      for (const tableId of tablesOf(definition)) {
        const actions = definition.access[tableId] ?? [];
        const indexes = (tables[tableId] as TableDefinition).globalIndexes.map((index) => index.name);
        fn.bindTable({ table: this.tables[tableId], env: tables[tableId].env, actions, indexes });
      }
      functions.set(definition, fn);
    }
    this.functions = functions;
    // InventoryUpdated (docs/operating.md "Metrics") counts updateInventory's audit lines (lib/http/completion-log.ts), so a
    // write logs one line, not a second EMF line for its metric.
    functions
      .get(operationNamed('updateInventory'))
      ?.logGroup.addMetricFilter('InventoryUpdatedMetricFilter', {
        filterPattern: FilterPattern.all(
          FilterPattern.stringValue('$.message', '=', 'write completed'),
          FilterPattern.numberValue('$.status', '=', 200),
        ),
        metricNamespace: settings.metricsNamespace,
        metricName: 'InventoryUpdated',
        metricValue: '1',
        dimensions: { service: '$.service' },
      });
    const functionOf = (definition: FunctionDefinition) => functions.get(definition) as ServiceFunction;

    this.api = new InventoryApi(this, 'Api', {
      functions: Object.fromEntries(
        operations.map((operation) => [operation.name, functionOf(operation).live]),
      ),
      authorizer: functionOf(authorizer).live,
      throttling: settings.throttling,
      keyThrottling: settings.apiKeys.throttle,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: removalPolicy,
      corsAllowedOrigins: settings.corsAllowedOrigins,
    });

    this.events = new ChangeEvents(this, 'Events', {
      settings,
      streams: Object.fromEntries(
        tableIds
          .filter((tableId) => (tables[tableId] as TableDefinition).stream)
          .map((tableId) => [tableLogicalId(tableId), this.tables[tableId]]),
      ),
      functions: {
        recordChanges: functionOf(eventFunctions.recordChanges),
        fanOutWebhooks: functionOf(eventFunctions.fanOutWebhooks),
        deliverWebhooks: functionOf(eventFunctions.deliverWebhooks),
      },
    });

    // The operations that send deliveries themselves (sendTestWebhook, redeliverWebhook): SendMessage on the fast
    // lane alone.
    for (const operation of operations.filter((candidate) => candidate.sendsDeliveries)) {
      const fn = functionOf(operation);
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['sqs:SendMessage'],
          resources: [this.events.deliveryQueue.queueArn],
        }),
      );
      fn.addEnvironment(eventsEnv.deliveryQueueUrl, this.events.deliveryQueue.queueUrl);
      fn.addEnvironment('AWS_ENDPOINT_URL_SQS', deployedAwsEndpoint);
    }

    const aliases = Object.fromEntries([...functions].map(([d, fn]) => [functionLogicalId(d), fn.live]));
    const aliasesOf = (definitions: readonly FunctionDefinition[]) =>
      Object.fromEntries(definitions.map((d) => [functionLogicalId(d), functionOf(d).live]));
    const actionsOn = (tableId: TableId) => [...functions.keys()].flatMap((d) => d.access[tableId] ?? []);
    const alarms =
      settings.alarms &&
      new ServiceAlarms(this, 'Alarms', {
        settings: settings.alarms,
        api: this.api.restApi,
        functions: aliasesOf([...operations, authorizer]),
        eventFunctions: aliasesOf(eventDefinitions),
        tables: Object.fromEntries(
          tableIds.map((tableId) => [
            tableLogicalId(tableId),
            { table: this.tables[tableId], actions: actionsOn(tableId) },
          ]),
        ),
      });
    if (alarms && settings.alarms) this.events.addAlarms(alarms, settings.alarms, settings.metricsNamespace);
    new GradualDeployment(this, 'Deployment', {
      trafficShifting: settings.trafficShifting,
      aliases,
      rollbackAlarms: alarms?.rollbackAlarms ?? {},
      alarmSettings: settings.alarms,
    });

    new CfnOutput(this, 'BaseUrl', {
      value: this.api.restApi.url,
      description: 'Base URL of the API, ending in /v1/ (docs/contract.md "Addresses")',
    });
    new CfnOutput(this, 'RestApiId', {
      value: this.api.restApi.restApiId,
      description: 'The REST API, for the key tool (usage plans of its stage)',
    });
    new CfnOutput(this, 'UsagePlanId', {
      value: this.api.usagePlan.usagePlanId,
      description: 'The default usage plan (per-key throttle), for the key tool',
    });
    new CfnOutput(this, 'InventoryTableName', {
      value: this.tables.inventory.tableName,
      description: `Inventory table (${tables.inventory.env}), for the import tool`,
    });
    new CfnOutput(this, 'ApiKeysTableName', {
      value: this.tables.apiKeys.tableName,
      description: `API keys table (${tables.apiKeys.env}), for the key tool`,
    });
    new CfnOutput(this, 'InventoryHistoryTableName', {
      value: this.tables.inventoryHistory.tableName,
      description: `Change records of the inventory (${tables.inventoryHistory.env})`,
    });
    new CfnOutput(this, 'WebhookSubscriptionsTableName', {
      value: this.tables.webhookSubscriptions.tableName,
      description: `Webhook subscriptions (${tables.webhookSubscriptions.env}), for the webhook tool`,
    });
    new CfnOutput(this, 'WebhookFailuresTableName', {
      value: this.tables.webhookFailures.tableName,
      description: `Webhook deliveries that failed for good (${tables.webhookFailures.env}), for the webhook tool`,
    });
    new CfnOutput(this, 'WebhookEndpointOwnersTableName', {
      value: this.tables.webhookEndpointOwners.tableName,
      description: `The webhook endpoints each API key holds (${tables.webhookEndpointOwners.env}), for the webhook tool`,
    });
    new CfnOutput(this, 'WebhookAttemptsTableName', {
      value: this.tables.webhookAttempts.tableName,
      description: `Webhook delivery attempts (${tables.webhookAttempts.env}), for the webhook tool`,
    });
    new CfnOutput(this, 'WebhookDeliveryQueueUrl', {
      value: this.events.deliveryQueue.queueUrl,
      description: 'The webhook delivery queue, where the webhook tool redrives failures',
    });

    acknowledgeNagFindings(this);
  }
}

/**
 * The cdk-nag AwsSolutions findings that this service acknowledges instead of fixing, each with its reason.
 * Every other finding fails the test `test/infra/nag.test.ts`.
 */
function acknowledgeNagFindings(stack: InventoryStack): void {
  const api = stack.api.restApi;
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions-APIG2',
      reason:
        'Requests are validated in the functions: the contract requires an Error body {code, message, status} with a message naming the invalid member, which API Gateway request validators cannot produce.',
    },
    {
      id: 'AwsSolutions-APIG3',
      reason:
        'No WAF web ACL: the API is authenticated by bearer API keys and protected by stage throttling; a web ACL is an account-level cost decision outside this service.',
    },
    {
      id: 'AwsSolutions-APIG6',
      reason:
        'Execution logging stays off: at INFO it writes request headers, and the Authorization header carries the API key, which must never be logged (docs/contract.md "Authentication and authorization"). JSON access logs are on.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'The spec mandates bearer API keys (docs/service-spec.md §5), checked by the TOKEN authorizer attached to every method; there are no Cognito users.',
    },
  );
}
