/** The service's stack, one class per environment (docs/service-spec.md §9.2), everything from lib/api.ts. */
import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { authorizer, eventFunctions, type FunctionDefinition, operations } from '#lib/api.ts';
import { type TableId, tables } from '#lib/tables.ts';
import { ChangeEvents } from './change-events.ts';
import { GradualDeployment } from './gradual-deployment.ts';
import { InventoryApi } from './inventory-api.ts';
import { ServiceAlarms } from './service-alarms.ts';
import type { ServiceFunction } from './service-function.ts';
import { eventDefinitions, ServiceFunctions } from './service-functions.ts';
import { type OutputValue, ServiceTables, tableLogicalId } from './service-tables.ts';
import type { EnvironmentSettings } from './settings.ts';

// The logical ids the tools and tests name resources by, and the variables of a deprecated operation.
export { deprecationEnvironment, functionLogicalId } from './service-functions.ts';
export { tableLogicalId } from './service-tables.ts';

/** Properties of an {@link InventoryStack}. */
export interface InventoryStackProps extends StackProps {
  /** The environment's settings: the only input that differs between staging and production. */
  settings: EnvironmentSettings;
}

/**
 * The stack: tables, functions, API, events, alarms and gradual deployment of one environment's settings, and
 * its outputs (the tools read them by name).
 */
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

    const tableSet = new ServiceTables(this, 'Tables', { settings, removalPolicy });
    this.tables = tableSet.tables;
    const functions = new ServiceFunctions(this, 'Functions', {
      settings,
      logRemovalPolicy: removalPolicy,
      tables: this.tables,
    });
    this.functions = functions.functions;

    this.api = new InventoryApi(this, 'Api', {
      functions: Object.fromEntries(
        operations.map((operation) => [operation.name, functions.of(operation).live]),
      ),
      authorizer: functions.of(authorizer).live,
      throttling: settings.throttling,
      keyThrottling: settings.apiKeys.throttle,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: removalPolicy,
      corsAllowedOrigins: settings.corsAllowedOrigins,
    });

    this.events = new ChangeEvents(this, 'Events', {
      settings,
      streams: tableSet.streams,
      functions: {
        recordChanges: functions.of(eventFunctions.recordChanges),
        fanOutWebhooks: functions.of(eventFunctions.fanOutWebhooks),
        deliverWebhooks: functions.of(eventFunctions.deliverWebhooks),
      },
    });
    functions.sendDeliveriesTo(this.events.deliveryQueue);

    const actionsOn = (tableId: TableId) =>
      [...this.functions.keys()].flatMap((d) => d.access[tableId] ?? []);
    const alarms =
      settings.alarms &&
      new ServiceAlarms(this, 'Alarms', {
        settings: settings.alarms,
        api: this.api.restApi,
        functions: functions.aliasesOf([...operations, authorizer]),
        eventFunctions: functions.aliasesOf(eventDefinitions),
        tables: Object.fromEntries(
          (Object.keys(tables) as TableId[]).map((tableId) => [
            tableLogicalId(tableId),
            { table: this.tables[tableId], actions: actionsOn(tableId) },
          ]),
        ),
      });
    if (alarms && settings.alarms) this.events.addAlarms(alarms, settings.alarms, settings.metricsNamespace);
    new GradualDeployment(this, 'Deployment', {
      trafficShifting: settings.trafficShifting,
      aliases: functions.aliasesOf([...this.functions.keys()]),
      rollbackAlarms: alarms?.rollbackAlarms ?? {},
      alarmSettings: settings.alarms,
    });

    const outputs: Record<string, OutputValue> = {
      BaseUrl: {
        value: this.api.restApi.url,
        description: 'Base URL of the API, ending in /v1/ (docs/contract.md "Addresses")',
      },
      RestApiId: {
        value: this.api.restApi.restApiId,
        description: 'The REST API, for the key tool (usage plans of its stage)',
      },
      UsagePlanId: {
        value: this.api.usagePlan.usagePlanId,
        description: 'The default usage plan (per-key throttle), for the key tool',
      },
      ...tableSet.outputs,
      WebhookDeliveryQueueUrl: {
        value: this.events.deliveryQueue.queueUrl,
        description: 'The webhook delivery queue, where the webhook tool redrives failures',
      },
    };
    for (const [name, output] of Object.entries(outputs)) new CfnOutput(this, name, output);

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
