/** One Lambda function per definition of lib/api.ts (operations, authorizer, event functions), each with its tables. */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  authorizer,
  eventFunctions,
  type FunctionDefinition,
  type Operation,
  operations,
  tablesOf,
} from '#lib/api.ts';
import { corsOriginsEnv } from '#lib/http/cors.ts';
import { deprecationEnv } from '#lib/pets/deprecation.ts';
import { serviceName } from '#lib/service-name.ts';
import { type TableDefinition, type TableId, tables } from '#lib/tables.ts';
import { webhookEnv } from '#lib/webhooks/webhook-env.ts';
import { deployedAwsEndpoint } from './change-events.ts';
import { functionSettings, settingsOf } from './function-settings.ts';
import { ServiceFunction } from './service-function.ts';
import type { EnvironmentSettings } from './settings.ts';

/**
 * The CloudFormation logical id of a function of lib/api.ts: its name in PascalCase + `Function`
 * (`listInventory` -> `ListInventoryFunction`, `authorizer` -> `AuthorizerFunction`).
 */
export function functionLogicalId(definition: FunctionDefinition): string {
  return `${definition.name[0]?.toUpperCase()}${definition.name.slice(1)}Function`;
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
export const eventDefinitions: readonly FunctionDefinition[] = Object.values(eventFunctions);

/** Properties of {@link ServiceFunctions}. */
export interface ServiceFunctionsProps {
  /** The environment's settings (log level and retention, metrics namespace, CORS, concurrency, deprecation). */
  settings: EnvironmentSettings;
  /** What happens to the functions' log groups when they leave the stack. */
  logRemovalPolicy: RemovalPolicy;
  /** The tables (infra/service-tables.ts), each function bound to those of its lib/api.ts `access`. */
  tables: Readonly<Record<TableId, ITable>>;
}

/**
 * Every function of lib/api.ts, made alike from its row and its settings (infra/function-settings.ts). Each is
 * the stack's own child with the logical id {@link functionLogicalId}, as its role, log group, alias, version
 * and the role's policy, so grouping them here changes no logical id.
 */
export class ServiceFunctions extends Construct {
  /** The function of each definition of lib/api.ts (`operations`, `authorizer` and `eventFunctions`). */
  readonly functions: ReadonlyMap<FunctionDefinition, ServiceFunction>;

  /** @throws Error when infra/function-settings.ts has settings for a name no function of lib/api.ts has */
  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    const { settings, logRemovalPolicy } = props;
    const definitions = [...operations, authorizer, ...eventDefinitions];
    const unknown = Object.keys(functionSettings).filter((name) => !definitions.some((d) => d.name === name));
    if (unknown.length > 0) throw new Error(`settings for no function of lib/api.ts: ${unknown.join(', ')}`);
    const functions = new Map<FunctionDefinition, ServiceFunction>();
    for (const definition of definitions) {
      const own = settingsOf(definition);
      const fn = new ServiceFunction(scope, functionLogicalId(definition), {
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
          ...own.environment,
        },
        logRetention: settings.logRetentionDays,
        logRemovalPolicy,
        sizing: own.sizing,
        reservedConcurrency: settings.reservedConcurrency,
        readsStreams: own.readsStreams,
      });
      for (const tableId of tablesOf(definition)) {
        const actions = definition.access[tableId] ?? [];
        const indexes = (tables[tableId] as TableDefinition).globalIndexes.map((index) => index.name);
        fn.bindTable({ table: props.tables[tableId], env: tables[tableId].env, actions, indexes });
      }
      for (const [filterId, metric] of Object.entries(own.logMetrics ?? {})) {
        fn.logGroup.addMetricFilter(filterId, { ...metric, metricNamespace: settings.metricsNamespace });
      }
      functions.set(definition, fn);
    }
    this.functions = functions;
  }

  /**
   * The function of `definition`.
   * @throws Error when it is not a definition of lib/api.ts (a wiring mistake, at synthesis)
   */
  of(definition: FunctionDefinition): ServiceFunction {
    const fn = this.functions.get(definition);
    if (!fn) throw new Error(`no function for ${definition.name}`);
    return fn;
  }

  /**
   * Lets the operations that send deliveries themselves (lib/api.ts `sendsDeliveries`: sendTestWebhook) send to
   * `queue`, the fast lane: `sqs:SendMessage` on it alone, its URL and the deployed SQS endpoint as variables.
   */
  sendDeliveriesTo(queue: IQueue): void {
    for (const operation of operations.filter((candidate) => candidate.sendsDeliveries)) {
      const fn = this.of(operation);
      fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
      fn.addEnvironment(webhookEnv.deliveryQueueUrl, queue.queueUrl);
      fn.addEnvironment('AWS_ENDPOINT_URL_SQS', deployedAwsEndpoint);
    }
  }

  /** The aliases `live` of `definitions`, by function logical id (`ListInventoryFunction`). */
  aliasesOf(definitions: readonly FunctionDefinition[]) {
    return Object.fromEntries(definitions.map((d) => [functionLogicalId(d), this.of(d).live]));
  }
}
