/**
 * The synthesized staging and production templates against docs/architecture.md and docs/operating.md
 * "Environments": functions (runtime, architecture,
 * timeout, logging, environment, tracing, alias `live`), least-privilege IAM, tables, the API (stage, authorizer
 * on every method, both invoking aliases, throttling, tracing, access logs), gateway responses, alarms
 * (production only), gradual deployments (CodeDeploy) and outputs. The events path (stream mappings, bus,
 * archive, rule, queues) is test/infra/events.test.ts. Expected values come
 * from lib/api.ts, infra/gateway-responses.ts and infra/settings.ts, so the templates are checked against the
 * single definitions they are rendered from.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { eventFunctionSizing } from '#infra/change-events.ts';
import { gatewayResponses } from '#infra/gateway-responses.ts';
import { minimumShiftIntervalSeconds } from '#infra/gradual-deployment.ts';
import { accessLogFields } from '#infra/inventory-api.ts';
import { deprecationEnvironment, functionLogicalId, tableLogicalId } from '#infra/inventory-stack.ts';
import { defaultTimeout, liveAlias, sdkWorstCaseMs } from '#infra/service-function.ts';
import { type EnvironmentName, environments } from '#infra/settings.ts';
import { tableKeySchema } from '#lib/admin/tables.ts';
import {
  authorizer,
  authorizerCacheTtlSeconds,
  eventFunctions,
  type FunctionDefinition,
  operations,
  stageName,
  tablesOf,
} from '#lib/api.ts';
import { serviceName } from '#lib/service-name.ts';
import { type TableDefinition, type TableId, tables } from '#lib/tables.ts';
import { getAtt, ref, resource, resourcesOfType, synthesized, type TemplateJson } from './synth.ts';

/** The functions AWS invokes rather than the API: the streams' consumer, the rule's target, the queue's reader. */
const eventDefinitions: FunctionDefinition[] = Object.values(eventFunctions);
const definitions: FunctionDefinition[] = [...operations, authorizer, ...eventDefinitions];
const isEventFunction = (definition: FunctionDefinition) => eventDefinitions.includes(definition);

/** The memory (MB) and timeout (s) of a function: 256 MB and 10 s unless it streams or is an event function. */
function sizingOf(definition: FunctionDefinition): { memoryMb: number; timeoutSeconds: number } {
  if (isEventFunction(definition)) {
    return eventFunctionSizing[definition.name as keyof typeof eventFunctionSizing];
  }
  return (
    (definition as Partial<(typeof operations)[number]>).streaming ?? { memoryMb: 256, timeoutSeconds: 10 }
  );
}

/**
 * The variables of the events path on an event function (docs/operating.md "Events and webhooks"): the bus for
 * the consumer, both delivery lanes for the fan-out and the delivery (the slow lane's ARN too), the retry
 * schedule and URL policy for deliveries, and an empty endpoint for each AWS service it calls besides DynamoDB
 * (the regional one, as deployed).
 */
const eventVariables: Record<string, Record<string, unknown>> = {
  recordChanges: { EVENT_BUS_NAME: ref('EventBus'), AWS_ENDPOINT_URL_EVENTBRIDGE: '' },
  fanOutWebhooks: {
    WEBHOOK_DELIVERY_QUEUE_URL: ref('WebhookDeliveryQueue'),
    WEBHOOK_SLOW_LANE_QUEUE_URL: ref('WebhookSlowLaneQueue'),
    AWS_ENDPOINT_URL_SQS: '',
  },
  deliverWebhooks: {
    WEBHOOK_DELIVERY_QUEUE_URL: ref('WebhookDeliveryQueue'),
    WEBHOOK_SLOW_LANE_QUEUE_URL: ref('WebhookSlowLaneQueue'),
    WEBHOOK_SLOW_LANE_QUEUE_ARN: getAtt('WebhookSlowLaneQueue', 'Arn'),
    WEBHOOK_RETRY_DELAYS: '5,300,1800,7200,18000,36000,36000',
    WEBHOOK_DISABLE_AFTER_SECONDS: '432000',
    WEBHOOK_URL_POLICY: 'public-https',
    AWS_ENDPOINT_URL_SQS: '',
  },
  // The SSRF guard of a new endpoint, as the deliveries' (docs/contract.md "History and events").
  createWebhookEndpoint: { WEBHOOK_URL_POLICY: 'public-https' },
  // The test event goes to the delivery queue directly (lib/api.ts `sendsDeliveries`).
  sendTestWebhook: { WEBHOOK_DELIVERY_QUEUE_URL: ref('WebhookDeliveryQueue'), AWS_ENDPOINT_URL_SQS: '' },
  // The redelivery goes to the delivery queue directly, as the test event.
  redeliverWebhook: { WEBHOOK_DELIVERY_QUEUE_URL: ref('WebhookDeliveryQueue'), AWS_ENDPOINT_URL_SQS: '' },
};
const environmentNames = Object.keys(environments) as EnvironmentName[];

/** The logical id of the one resource of `type`. */
function onlyOfType(json: TemplateJson, type: string): string {
  const ids = Object.keys(resourcesOfType(json, type));
  expect(ids, `resources of type ${type}`).toHaveLength(1);
  return ids[0] as string;
}

/** The path of an `AWS::ApiGateway::Resource` (or the root) from its PathPart and ParentId chain. */
function resourcePath(json: TemplateJson, resourceId: unknown, restApiId: string): string {
  if (JSON.stringify(resourceId) === JSON.stringify(getAtt(restApiId, 'RootResourceId'))) return '';
  const logicalId = (resourceId as { Ref: string }).Ref;
  const { Properties } = resource(json, logicalId);
  return `${resourcePath(json, Properties.ParentId, restApiId)}/${Properties.PathPart}`;
}

/** Every IAM policy statement attached to the role `roleId` (inline policies and AWS::IAM::Policy). */
function roleStatements(json: TemplateJson, roleId: string): Record<string, unknown>[] {
  const statements: Record<string, unknown>[] = [];
  const role = resource(json, roleId);
  for (const policy of (role.Properties.Policies ?? []) as { PolicyDocument: { Statement: [] } }[]) {
    statements.push(...policy.PolicyDocument.Statement);
  }
  for (const policy of Object.values(resourcesOfType(json, 'AWS::IAM::Policy'))) {
    const roles = policy.Properties.Roles as unknown[];
    if (roles.some((r) => JSON.stringify(r) === JSON.stringify(ref(roleId)))) {
      statements.push(
        ...(policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
      );
    }
  }
  return statements;
}

/** Orders JSON values by their serialization (for comparing unordered lists of objects). */
function byJson(a: unknown, b: unknown): number {
  return JSON.stringify(a).localeCompare(JSON.stringify(b));
}

/** Evaluates an `Fn::Join` whose parts are strings or Refs, replacing each Ref with `refs[id]` or `<id>`. */
function joinWith(value: unknown, refs: Record<string, string>): string {
  const [separator, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const id = (part as { Ref: string }).Ref;
      return refs[id] ?? `<${id}>`;
    })
    .join(separator);
}

/** One value as IAM renders a list of one (without the array), else the list. */
const oneOrMany = <T>(values: T[]): T | T[] => (values.length === 1 ? (values[0] as T) : values);

/** A statement allowing `actions` on `resource`, as IAM renders it (a single action without the array). */
const allow = (actions: string[], resourceValue: unknown) => ({
  Action: actions.length === 1 ? actions[0] : actions,
  Effect: 'Allow',
  Resource: resourceValue,
});

/**
 * What an event function may do besides its tables: the consumer reads both streams (ListStreams, which lists the
 * account's streams, on `*` as AWS's managed AWSLambdaDynamoDBExecutionRole grants it), sends failed batches to
 * its failure queue and
 * puts events on the bus; the fan-out reads the change-events queue and sends deliveries to the delivery queue; the delivery reads,
 * deletes and re-times the delivery messages.
 */
/** What an SQS event source mapping's function may do to its queue (aws-lambda-event-sources `SqsEventSource`). */
const receiveActions = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
];
const sendActions = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
const eventStatements: Record<string, Record<string, unknown>[]> = {
  recordChanges: [
    ...['InventoryTable', 'OrdersTable'].map((table) =>
      allow(
        ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        getAtt(table, 'StreamArn'),
      ),
    ),
    allow(['dynamodb:ListStreams'], '*'),
    allow(sendActions, getAtt('ChangeRecordsFailureQueue', 'Arn')),
    allow(['events:PutEvents'], getAtt('EventBus', 'Arn')),
  ],
  fanOutWebhooks: [
    allow(receiveActions, getAtt('ChangeEventsQueue', 'Arn')),
    allow(sendActions, getAtt('WebhookDeliveryQueue', 'Arn')),
    allow(sendActions, getAtt('WebhookSlowLaneQueue', 'Arn')),
  ],
  deliverWebhooks: [
    allow(receiveActions, getAtt('WebhookDeliveryQueue', 'Arn')),
    allow(receiveActions, getAtt('WebhookSlowLaneQueue', 'Arn')),
    allow(sendActions, getAtt('WebhookSlowLaneQueue', 'Arn')),
  ],
  // SendMessage alone on the fast lane (lib/api.ts `sendsDeliveries`).
  sendTestWebhook: [allow(['sqs:SendMessage'], getAtt('WebhookDeliveryQueue', 'Arn'))],
  redeliverWebhook: [allow(['sqs:SendMessage'], getAtt('WebhookDeliveryQueue', 'Arn'))],
};

describe.each(environmentNames)('%s stack', (name) => {
  const settings = environments[name];
  const synthesizedEnvironment = () => synthesized().environments[name];
  const json = () => synthesizedEnvironment().json;

  describe('functions', () => {
    it('has exactly one Lambda function per operation plus the authorizer and the event functions, and no custom-resource functions', () => {
      expect(Object.keys(resourcesOfType(json(), 'AWS::Lambda::Function')).sort()).toEqual(
        definitions.map(functionLogicalId).sort(),
      );
      expect(Object.keys(resourcesOfType(json(), 'Custom::LogRetention'))).toEqual([]);
    });

    it.each(definitions.map((d) => [functionLogicalId(d), d] as const))(
      '%s runs nodejs24.x on arm64 with index.handler, 256 MB and a 10 s timeout unless it streams or handles events',
      (logicalId, definition) => {
        expect(resource(json(), logicalId).Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          MemorySize: sizingOf(definition).memoryMb,
          Timeout: sizingOf(definition).timeoutSeconds,
        });
      },
    );

    it('gives the streaming listInventory 512 MB and the 15 minutes API Gateway allows a stream', () => {
      expect(resource(json(), 'ListInventoryFunction').Properties).toMatchObject({
        MemorySize: 512,
        Timeout: 900,
      });
    });

    it('gives recordChanges 60 s for a batch of 100 records, the webhook functions 30 s (a POST waits up to 10 s)', () => {
      const timeout = (name: string) =>
        resource(json(), functionLogicalId(eventFunctions[name as keyof typeof eventFunctions])).Properties
          .Timeout;
      expect(['recordChanges', 'fanOutWebhooks', 'deliverWebhooks'].map(timeout)).toEqual([60, 30, 30]);
    });

    it('times out after the DynamoDB client gives up (10 s > 3 attempts x 3 s), so a dead database is a 503', () => {
      expect(defaultTimeout.toSeconds()).toBe(10);
      expect(sdkWorstCaseMs).toBe(9000);
      expect(defaultTimeout.toMilliseconds()).toBeGreaterThan(sdkWorstCaseMs);
    });

    it.each(definitions.map((d) => [functionLogicalId(d), d] as const))(
      '%s declares exactly its table variable, the Powertools variables, source maps, an empty endpoint and, when deprecated, its dates; an event function its events variables',
      (logicalId, definition) => {
        expect(resource(json(), logicalId).Properties.Environment).toEqual({
          Variables: {
            NODE_OPTIONS: '--enable-source-maps',
            POWERTOOLS_SERVICE_NAME: serviceName,
            POWERTOOLS_LOG_LEVEL: settings.logLevel,
            POWERTOOLS_METRICS_NAMESPACE: settings.metricsNamespace,
            AWS_ENDPOINT_URL_DYNAMODB: '',
            ...deprecationEnvironment(definition, settings),
            ...Object.fromEntries(tablesOf(definition).map((t) => [tables[t].env, ref(tableLogicalId(t))])),
            ...eventVariables[definition.name],
          },
        });
      },
    );

    it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
      '%s logs JSON into its own log group with the environment retention and removal policy',
      (logicalId) => {
        expect(resource(json(), logicalId).Properties.LoggingConfig).toEqual({
          LogFormat: 'JSON',
          LogGroup: ref(`${logicalId}LogGroup`),
        });
        const logGroup = resource(json(), `${logicalId}LogGroup`);
        expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
        expect(logGroup.Properties.RetentionInDays).toBe(settings.logRetentionDays);
        expect(logGroup.DeletionPolicy).toBe(settings.removalPolicy === 'retain' ? 'Retain' : 'Delete');
      },
    );

    it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
      '%s has X-Ray active tracing',
      (logicalId) => {
        expect(resource(json(), logicalId).Properties.TracingConfig).toEqual({ Mode: 'Active' });
      },
    );

    it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
      `%s has one alias "${liveAlias}" (<function>Alias) on a version of this function`,
      (logicalId) => {
        const alias = resource(json(), `${logicalId}Alias`);
        expect(alias.Type).toBe('AWS::Lambda::Alias');
        expect(alias.Properties).toEqual({
          FunctionName: ref(logicalId),
          FunctionVersion: { 'Fn::GetAtt': [expect.any(String), 'Version'] },
          Name: 'live',
        });
        const [versionId] = (alias.Properties.FunctionVersion as { 'Fn::GetAtt': [string] })['Fn::GetAtt'];
        expect(resource(json(), versionId)).toMatchObject({
          Type: 'AWS::Lambda::Version',
          Properties: { FunctionName: ref(logicalId) },
        });
      },
    );

    it('has no alias or version besides one of each per function', () => {
      expect(Object.keys(resourcesOfType(json(), 'AWS::Lambda::Alias')).sort()).toEqual(
        definitions.map((d) => `${functionLogicalId(d)}Alias`).sort(),
      );
      const versions = Object.values(resourcesOfType(json(), 'AWS::Lambda::Version'));
      expect(versions.map((v) => v.Properties.FunctionName).sort(byJson)).toEqual(
        definitions.map((d) => ref(functionLogicalId(d))).sort(byJson),
      );
    });
  });

  describe('least privilege', () => {
    it.each(definitions.map((d) => [functionLogicalId(d), d] as const))(
      '%s may only write its log group, perform its lib/api.ts actions on its tables and, for an event function, its events actions',
      (logicalId, definition) => {
        const roleId = `${logicalId}Role`;
        expect(resource(json(), logicalId).Properties.Role).toEqual(getAtt(roleId, 'Arn'));
        expect(resource(json(), roleId).Properties.ManagedPolicyArns).toBeUndefined();
        expect([...roleStatements(json(), roleId)].sort(byJson)).toEqual(
          [
            // X-Ray's actions take no resource-level permission (acknowledged in test/infra/nag.test.ts).
            { Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Effect: 'Allow', Resource: '*' },
            {
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Effect: 'Allow',
              Resource: getAtt(`${logicalId}LogGroup`, 'Arn'),
            },
            ...tablesOf(definition).flatMap((t) => {
              const actions = definition.access[t] ?? [];
              // A table without an index is queried itself (the change records).
              const hasIndexes = (tables[t] as TableDefinition).globalIndexes.length > 0;
              const onTable = actions.filter((action) => !hasIndexes || action !== 'dynamodb:Query');
              const onIndexes = actions.filter((action) => hasIndexes && action === 'dynamodb:Query');
              const tableArn = getAtt(tableLogicalId(t), 'Arn');
              return [
                ...(onTable.length > 0
                  ? [
                      {
                        Action: onTable.length === 1 ? onTable[0] : onTable,
                        Effect: 'Allow',
                        Resource: tableArn,
                      },
                    ]
                  : []),
                ...(onIndexes.length > 0
                  ? [
                      {
                        Action: onIndexes.length === 1 ? onIndexes[0] : onIndexes,
                        Effect: 'Allow',
                        // One index: IAM renders a single resource without the array.
                        Resource: oneOrMany(
                          (tables[t] as TableDefinition).globalIndexes.map((index) => ({
                            'Fn::Join': ['', [tableArn, `/index/${index.name}`]],
                          })),
                        ),
                      },
                    ]
                  : []),
              ];
            }),
            ...(eventStatements[definition.name] ?? []),
          ].sort(byJson),
        );
      },
    );

    it('grants no wildcard action anywhere in the template (queues and topic deny every action without TLS)', () => {
      const statements: { Effect: string; Action: unknown }[] = [];
      const collect = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(collect);
        else if (value && typeof value === 'object') {
          if ('Effect' in value && 'Action' in value) statements.push(value as (typeof statements)[0]);
          Object.values(value).forEach(collect);
        }
      };
      collect(json());
      const allowed = statements.filter((statement) => statement.Effect === 'Allow');
      expect(allowed.length).toBeGreaterThan(0);
      for (const { Action } of allowed) expect(JSON.stringify(Action)).not.toContain('*');
      // The only Denies: every request without TLS, on each queue and the alarm topic (enforceSSL).
      for (const statement of statements.filter(({ Effect }) => Effect !== 'Allow')) {
        expect(statement).toMatchObject({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        });
      }
    });
  });

  describe('tables', () => {
    it.each(Object.keys(tables) as TableId[])(
      '%s table: keys and indexes from lib/tables.ts as the local store creates them, on-demand, encrypted, PITR / deletion protection / removal from settings, time to live and a stream of new and old images when declared',
      (tableId) => {
        const { timeToLiveAttribute, stream } = tables[tableId] as TableDefinition;
        const table = resource(json(), tableLogicalId(tableId));
        expect(table.Type).toBe('AWS::DynamoDB::Table');
        // The local store creates its tables with the same keys (lib/admin/tables.ts tableKeySchema).
        expect(table.Properties).toEqual({
          ...tableKeySchema(tableId),
          BillingMode: 'PAY_PER_REQUEST',
          SSESpecification: { SSEEnabled: true },
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: settings.pointInTimeRecovery },
          DeletionProtectionEnabled: settings.deletionProtection,
          ...(timeToLiveAttribute && {
            TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true },
          }),
          ...(stream && { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } }),
        });
        const policy = settings.removalPolicy === 'retain' ? 'Retain' : 'Delete';
        expect([table.DeletionPolicy, table.UpdateReplacePolicy]).toEqual([policy, policy]);
      },
    );
  });

  it('counts InventoryUpdated from updateInventory audit lines: a metric filter on its log group', () => {
    const filters = Object.values(resourcesOfType(json(), 'AWS::Logs::MetricFilter'));
    expect(filters.map((filter) => filter.Properties)).toEqual([
      {
        LogGroupName: { Ref: 'UpdateInventoryFunctionLogGroup' },
        FilterPattern: '{ ($.message = "write completed") && ($.status = 200) }',
        MetricTransformations: [
          {
            MetricName: 'InventoryUpdated',
            MetricNamespace: settings.metricsNamespace,
            MetricValue: '1',
            Dimensions: [{ Key: 'service', Value: '$.service' }],
          },
        ],
      },
    ]);
  });

  describe('API', () => {
    it('names the REST API after its stack, so staging and production metrics (dimension ApiName) never mix', () => {
      const restApi = resource(json(), onlyOfType(json(), 'AWS::ApiGateway::RestApi'));
      expect(restApi.Properties.Name).toBe(`InventoryService-${name}`);
    });

    it(`deploys the stage "${stageName}" with the environment throttling, metrics and X-Ray tracing`, () => {
      const stage = resource(json(), onlyOfType(json(), 'AWS::ApiGateway::Stage'));
      expect(stage.Properties.StageName).toBe('v1');
      expect(stage.Properties.TracingEnabled).toBe(true);
      expect(stage.Properties.MethodSettings).toEqual([
        {
          DataTraceEnabled: false,
          HttpMethod: '*',
          LoggingLevel: 'OFF',
          MetricsEnabled: true,
          ResourcePath: '/*',
          ThrottlingBurstLimit: settings.throttling.burstLimit,
          ThrottlingRateLimit: settings.throttling.rateLimit,
        },
      ]);
    });

    it("writes JSON access logs of the standard fields, the authorizer's principal and key id and the trace id, never a request header", () => {
      const stage = resource(json(), onlyOfType(json(), 'AWS::ApiGateway::Stage'));
      const { DestinationArn, Format } = stage.Properties.AccessLogSetting as {
        DestinationArn: unknown;
        Format: string;
      };
      const [logGroupId] = (DestinationArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
      expect(DestinationArn).toEqual(getAtt(logGroupId, 'Arn'));
      expect(resource(json(), logGroupId).Type).toBe('AWS::Logs::LogGroup');
      expect(resource(json(), logGroupId).Properties.RetentionInDays).toBe(settings.logRetentionDays);
      const fields = JSON.parse(Format) as Record<string, string>;
      expect(Object.keys(fields).sort()).toEqual(
        [
          'caller',
          'httpMethod',
          'ip',
          'keyId',
          'principalId',
          'protocol',
          'requestId',
          'requestTime',
          'resourcePath',
          'responseLength',
          'status',
          'user',
          'xrayTraceId',
        ].sort(),
      );
      expect(fields).toEqual(accessLogFields);
      // The principal is the key's name (functions/authorizer/handler.ts `principalId`), so a write names its key.
      expect(fields.principalId).toBe('$context.authorizer.principalId');
      expect(fields.keyId).toBe('$context.authorizer.keyId');
      expect(fields.xrayTraceId).toBe('$context.xrayTraceId');
      expect(fields.status).toBe('$context.status');
      expect(Format.toLowerCase()).not.toMatch(/header|authorization\b|\$input|\$method/);
    });

    it(`has one TOKEN authorizer on the Authorization header, caching ${authorizerCacheTtlSeconds} s, calling AuthorizerFunction's alias`, () => {
      const authorizerResource = resource(json(), onlyOfType(json(), 'AWS::ApiGateway::Authorizer'));
      expect(authorizerResource.Properties).toMatchObject({
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: 300,
      });
      const uri = JSON.stringify(authorizerResource.Properties.AuthorizerUri);
      expect(uri).toContain(`${JSON.stringify(ref(`${functionLogicalId(authorizer)}Alias`))},"/invocations"`);
      expect(uri).not.toContain(JSON.stringify(getAtt(functionLogicalId(authorizer), 'Arn')));
      expect(uri).not.toContain(JSON.stringify(ref(functionLogicalId(authorizer))));
    });

    it('lets API Gateway invoke only the aliases: each method its operation alias, the authorizer its alias (the event functions are invoked by their mappings)', () => {
      const restApiId = onlyOfType(json(), 'AWS::ApiGateway::RestApi');
      const permissions = Object.values(resourcesOfType(json(), 'AWS::Lambda::Permission')).map(
        ({ Properties }) => ({
          functionName: Properties.FunctionName,
          principal: Properties.Principal,
          action: Properties.Action,
          sourceArn:
            'Fn::Join' in (Properties.SourceArn as object)
              ? joinWith(Properties.SourceArn, { [restApiId]: 'api' })
              : Properties.SourceArn,
        }),
      );
      const expected = [
        ...operations.map((operation) => ({
          functionName: ref(`${functionLogicalId(operation)}Alias`),
          principal: 'apigateway.amazonaws.com',
          action: 'lambda:InvokeFunction',
          sourceArn: expect.stringMatching(
            new RegExp(`:api/<[^>]+>/${operation.method}${operation.path.replace(/\{[^}]+\}/g, '\\*')}$`),
          ),
        })),
        {
          functionName: ref(`${functionLogicalId(authorizer)}Alias`),
          principal: 'apigateway.amazonaws.com',
          action: 'lambda:InvokeFunction',
          sourceArn: expect.stringMatching(/:api\/authorizers\/<[^>]+>$/),
        },
      ];
      expect(permissions).toHaveLength(expected.length);
      expect(permissions).toEqual(expect.arrayContaining(expected));
    });

    it('validates the whole Authorization value against the bearer grammar before invoking the authorizer', () => {
      const { Properties } = resource(json(), onlyOfType(json(), 'AWS::ApiGateway::Authorizer'));
      expect(Properties.IdentityValidationExpression).toBe(
        '^[Bb][Ee][Aa][Rr][Ee][Rr] +([A-Za-z0-9._~+/-]+=*) *$',
      );
      const validates = (value: string) =>
        new RegExp(Properties.IdentityValidationExpression as string).test(value);
      const key = 'psk_AbC-_09AbC-_09AbC-_09AbC-_09AbC-_09AbC-_09Ab';
      expect(
        [`Bearer ${key}`, `bearer  ${key}`, `BEARER ${key} `, 'Bearer abc/+~.=='].map(validates),
      ).toStrictEqual([true, true, true, true]);
      expect(
        [key, `Basic ${key}`, 'Bearer ', `Bearer ${key} extra`, `Bearer\t${key}`, `x Bearer ${key}`].map(
          validates,
        ),
      ).toStrictEqual([false, false, false, false, false, false]);
    });

    it('answers a Deny with 401 and an authorizer that cannot decide with 503 (ACCESS_DENIED, AUTHORIZER_*)', () => {
      const statusOf = (type: string) =>
        Object.values(resourcesOfType(json(), 'AWS::ApiGateway::GatewayResponse')).find(
          (r) => r.Properties.ResponseType === type,
        )?.Properties.StatusCode;
      expect(
        ['ACCESS_DENIED', 'UNAUTHORIZED', 'AUTHORIZER_CONFIGURATION_ERROR', 'AUTHORIZER_FAILURE'].map(
          statusOf,
        ),
      ).toStrictEqual(['401', '401', '503', '503']);
    });

    it('renders every operation of lib/api.ts as a method behind the authorizer, and no other method', () => {
      const restApiId = onlyOfType(json(), 'AWS::ApiGateway::RestApi');
      const authorizerId = onlyOfType(json(), 'AWS::ApiGateway::Authorizer');
      const methods = Object.values(resourcesOfType(json(), 'AWS::ApiGateway::Method')).map(
        ({ Properties }) => ({
          method: Properties.HttpMethod,
          path: resourcePath(json(), Properties.ResourceId, restApiId),
          authorizationType: Properties.AuthorizationType,
          authorizerId: Properties.AuthorizerId,
          integrationType: (Properties.Integration as { Type: string }).Type,
          integrationUri: JSON.stringify((Properties.Integration as { Uri: unknown }).Uri),
          transferMode: (Properties.Integration as { ResponseTransferMode?: string }).ResponseTransferMode,
        }),
      );
      expect(methods).toHaveLength(operations.length);
      for (const operation of operations) {
        const method = methods.find((m) => m.method === operation.method && m.path === operation.path);
        expect(method, `${operation.method} ${operation.path}`).toMatchObject({
          authorizationType: 'CUSTOM',
          authorizerId: ref(authorizerId),
          integrationType: 'AWS_PROXY',
        });
        // A streaming operation is invoked with InvokeWithResponseStream: its own transfer mode and URI.
        const invocation = operation.streaming ? '/response-streaming-invocations' : '/invocations';
        expect(method?.integrationUri).toContain(
          `${JSON.stringify(ref(`${functionLogicalId(operation)}Alias`))},"${invocation}"`,
        );
        expect(method?.integrationUri).not.toContain(
          JSON.stringify(getAtt(functionLogicalId(operation), 'Arn')),
        );
        expect(method?.transferMode).toBe(operation.streaming ? 'STREAM' : undefined);
      }
    });

    it('renders every gateway response of infra/gateway-responses.ts with its status, JSON content type and Error body', () => {
      const rendered = Object.values(resourcesOfType(json(), 'AWS::ApiGateway::GatewayResponse'));
      expect(rendered).toHaveLength(Object.keys(gatewayResponses).length);
      for (const [type, body] of Object.entries(gatewayResponses)) {
        const response = rendered.find((r) => r.Properties.ResponseType === type);
        if (!response) throw new Error(`no gateway response ${type}`);
        expect(response.Properties, type).toMatchObject({
          StatusCode: String(body.status),
          ResponseParameters: { 'gatewayresponse.header.Content-Type': "'application/json'" },
          ResponseTemplates: { 'application/json': JSON.stringify(body) },
        });
        const template = (response.Properties.ResponseTemplates as Record<string, string>)[
          'application/json'
        ];
        expect(template).not.toMatch(/[$#]/);
        expect(JSON.parse(template as string)).toEqual({
          code: body.code,
          message: body.message,
          status: body.status,
        });
      }
    });

    it.each(['THROTTLED', 'QUOTA_EXCEEDED'])(
      'the 429 gateway response %s carries Retry-After: 1 (a static value) and no other header but Content-Type',
      (type) => {
        const rendered = Object.values(resourcesOfType(json(), 'AWS::ApiGateway::GatewayResponse'));
        const response = rendered.find((r) => r.Properties.ResponseType === type);
        expect(response?.Properties.StatusCode).toBe('429');
        expect(response?.Properties.ResponseParameters).toEqual({
          'gatewayresponse.header.Content-Type': "'application/json'",
          'gatewayresponse.header.Retry-After': "'1'",
        });
      },
    );

    it('no gateway response other than the 429 ones carries Retry-After', () => {
      const rendered = Object.values(resourcesOfType(json(), 'AWS::ApiGateway::GatewayResponse'));
      const withRetryAfter = rendered
        .filter((r) =>
          Object.hasOwn(
            (r.Properties.ResponseParameters ?? {}) as object,
            'gatewayresponse.header.Retry-After',
          ),
        )
        .map((r) => r.Properties.ResponseType)
        .sort();
      expect(withRetryAfter).toEqual(['QUOTA_EXCEEDED', 'THROTTLED']);
    });
  });

  describe('gradual deployments', () => {
    const { trafficShifting } = settings;

    it('has one CodeDeploy Lambda application and one service role with the documented managed policy', () => {
      expect(resource(json(), 'DeploymentApplication').Properties).toEqual({ ComputePlatform: 'Lambda' });
      const role = resource(json(), 'DeploymentRole');
      expect(role.Properties.AssumeRolePolicyDocument).toMatchObject({
        Statement: [
          { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'codedeploy.amazonaws.com' } },
        ],
      });
      expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain(
        ':iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited',
      );
      expect(Object.keys(resourcesOfType(json(), 'AWS::CodeDeploy::Application'))).toEqual([
        'DeploymentApplication',
      ]);
    });

    it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
      "%s's alias is moved by its own deployment group (the alias's CodeDeployLambdaAliasUpdate policy)",
      (logicalId) => {
        expect(resource(json(), `${logicalId}Alias`).UpdatePolicy).toEqual({
          CodeDeployLambdaAliasUpdate: {
            ApplicationName: ref('DeploymentApplication'),
            DeploymentGroupName: ref(`${logicalId}DeploymentGroup`),
          },
        });
        const group = resource(json(), `${logicalId}DeploymentGroup`);
        expect(group.Type).toBe('AWS::CodeDeploy::DeploymentGroup');
        expect(group.Properties).toMatchObject({
          ApplicationName: ref('DeploymentApplication'),
          ServiceRoleArn: getAtt('DeploymentRole', 'Arn'),
          DeploymentStyle: { DeploymentOption: 'WITH_TRAFFIC_CONTROL', DeploymentType: 'BLUE_GREEN' },
        });
      },
    );

    it('has exactly one deployment group per function', () => {
      expect(Object.keys(resourcesOfType(json(), 'AWS::CodeDeploy::DeploymentGroup')).sort()).toEqual(
        definitions.map((d) => `${functionLogicalId(d)}DeploymentGroup`).sort(),
      );
    });

    it(`shifts traffic as the settings say (${JSON.stringify(trafficShifting)})`, () => {
      const configs = resourcesOfType(json(), 'AWS::CodeDeploy::DeploymentConfig');
      for (const definition of definitions) {
        const group = resource(json(), `${functionLogicalId(definition)}DeploymentGroup`);
        if (trafficShifting.type === 'allAtOnce') {
          expect(group.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaAllAtOnce');
        } else {
          expect(group.Properties.DeploymentConfigName).toEqual(ref('DeploymentConfig'));
        }
      }
      if (trafficShifting.type === 'allAtOnce') {
        expect(Object.keys(configs)).toEqual([]);
        return;
      }
      const routing =
        trafficShifting.type === 'canary'
          ? {
              Type: 'TimeBasedCanary',
              TimeBasedCanary: {
                CanaryInterval: trafficShifting.intervalMinutes,
                CanaryPercentage: trafficShifting.percentage,
              },
            }
          : {
              Type: 'TimeBasedLinear',
              TimeBasedLinear: {
                LinearInterval: trafficShifting.intervalMinutes,
                LinearPercentage: trafficShifting.percentage,
              },
            };
      expect(Object.keys(configs)).toEqual(['DeploymentConfig']);
      expect(resource(json(), 'DeploymentConfig').Properties).toEqual({
        ComputePlatform: 'Lambda',
        TrafficRoutingConfig: routing,
      });
    });

    it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
      "%s's deployment rolls back when it fails or is stopped, and (with alarms) when its new-version alarm or, for an API function, the API alarms fire",
      (logicalId) => {
        const group = resource(json(), `${logicalId}DeploymentGroup`).Properties;
        const events = ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST'];
        if (!settings.alarms) {
          expect(group.AlarmConfiguration).toBeUndefined();
          expect(group.AutoRollbackConfiguration).toEqual({ Enabled: true, Events: events });
          return;
        }
        expect(group.AutoRollbackConfiguration).toEqual({
          Enabled: true,
          Events: [...events, 'DEPLOYMENT_STOP_ON_ALARM'],
        });
        const { Alarms, Enabled } = group.AlarmConfiguration as {
          Alarms: { Name: { Ref: string } }[];
          Enabled: boolean;
        };
        expect(Enabled).toBe(true);
        const watched = Alarms.map(({ Name }) => resource(json(), Name.Ref).Properties);
        // An event function's deployment does not wait on the API's alarms, which its code cannot move.
        if (eventDefinitions.map(functionLogicalId).includes(logicalId)) {
          expect(watched.map((alarm) => alarm.MetricName)).toEqual(['Errors']);
          expect(watched[0]?.Dimensions).toEqual(
            expect.arrayContaining([
              { Name: 'FunctionName', Value: ref(logicalId) },
              { Name: 'ExecutedVersion', Value: expect.anything() },
            ]),
          );
          return;
        }
        expect(watched.map((alarm) => alarm.MetricName)).toEqual(['5XXError', 'Latency', 'Errors']);
        expect(watched[0]?.Namespace).toBe('AWS/ApiGateway');
        expect(watched[1]?.Namespace).toBe('AWS/ApiGateway');
        expect(watched[2]?.Dimensions).toEqual(
          expect.arrayContaining([
            { Name: 'FunctionName', Value: ref(logicalId) },
            { Name: 'ExecutedVersion', Value: expect.anything() },
          ]),
        );
      },
    );
  });

  describe('outputs', () => {
    it('outputs BaseUrl as the stage URL ending in /v1/, the tables the tools use, the delivery and change-records failure queues and the exported bus name', () => {
      const outputs = json().Outputs ?? {};
      const restApiId = onlyOfType(json(), 'AWS::ApiGateway::RestApi');
      const stageId = onlyOfType(json(), 'AWS::ApiGateway::Stage');
      const baseUrl = joinWith(outputs.BaseUrl?.Value, {
        [stageId]: stageName,
        'AWS::URLSuffix': 'amazonaws.com',
      });
      expect(baseUrl).toBe(`https://<${restApiId}>.execute-api.<AWS::Region>.amazonaws.com/v1/`);
      expect(outputs.InventoryTableName?.Value).toEqual(ref('InventoryTable'));
      expect(outputs.ApiKeysTableName?.Value).toEqual(ref('ApiKeysTable'));
      expect(outputs.InventoryHistoryTableName?.Value).toEqual(ref('InventoryHistoryTable'));
      expect(outputs.WebhookSubscriptionsTableName?.Value).toEqual(ref('WebhookSubscriptionsTable'));
      expect(outputs.WebhookFailuresTableName?.Value).toEqual(ref('WebhookFailuresTable'));
      expect(outputs.WebhookDeliveryQueueUrl?.Value).toEqual(ref('WebhookDeliveryQueue'));
      expect(outputs.ChangeRecordsFailureQueueUrl?.Value).toEqual(ref('ChangeRecordsFailureQueue'));
      expect(outputs.EventBusName).toMatchObject({
        Value: ref('EventBus'),
        Export: { Name: `InventoryService-${name}-EventBusName` },
      });
    });
  });

  it('is environment-agnostic: no account or region is written into the template', () => {
    expect(synthesizedEnvironment().environment).toBe('aws://unknown-account/unknown-region');
    expect(JSON.stringify(json())).not.toMatch(/\b\d{12}\b|(us|eu|ap|sa|ca|me|af)-[a-z]+-\d/);
  });
});

describe('production alarms', () => {
  const alarms = environments.production.alarms;
  const json = () => synthesized().environments.production.json;
  const template = () => synthesized().environments.production.template;

  it('production has alarm settings (the test below checks them all)', () => {
    expect(alarms).toEqual({
      api5xxRate: 0.01,
      apiLatencyP99Ms: 1000,
      periodSeconds: 300,
      evaluationPeriods: 1,
      changeRecordsIteratorAgeMs: 60_000,
    });
  });

  it('has the alarms: API 5XX rate, API p99 latency, Errors, Throttles and new-version Errors per function, throttled requests per table, and the 6 of the events path', () => {
    const names = Object.keys(resourcesOfType(json(), 'AWS::CloudWatch::Alarm'));
    // The events path (test/infra/events.test.ts): iterator age, three dead-letter queues, failed deliveries,
    // disabled endpoints.
    expect(names).toHaveLength(2 + 3 * definitions.length + Object.keys(tables).length + 6);
  });

  it('every alarm notifies the alarm topic', () => {
    const topicId = onlyOfType(json(), 'AWS::SNS::Topic');
    for (const alarm of Object.values(resourcesOfType(json(), 'AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toEqual([ref(topicId)]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
      expect(alarm.Properties.EvaluationPeriods).toBe(1);
    }
  });

  it.each([
    ['an API 5XX rate above 1%', { MetricName: '5XXError', Statistic: 'Average', Threshold: 0.01 }],
    ['a p99 latency above 1000 ms', { MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: 1000 }],
  ])('alarms on %s over 5 minutes', (_name, metric) => {
    template().hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      Dimensions: [{ Name: 'ApiName', Value: 'InventoryService-production' }],
      Period: 300,
      ComparisonOperator: 'GreaterThanThreshold',
      ...metric,
    });
  });

  it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
    'alarms on any error and any throttle of %s',
    (logicalId) => {
      for (const metricName of ['Errors', 'Throttles']) {
        template().hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Dimensions: [{ Name: 'FunctionName', Value: ref(logicalId) }],
          Statistic: 'Sum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
    },
  );

  it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
    `alarms on any error of the version a deployment publishes of %s, invoked through its alias "${liveAlias}"`,
    (logicalId) => {
      const versionId = (
        resource(json(), `${logicalId}Alias`).Properties.FunctionVersion as { 'Fn::GetAtt': [string] }
      )['Fn::GetAtt'][0];
      template().hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [
          { Name: 'ExecutedVersion', Value: getAtt(versionId, 'Version') },
          { Name: 'FunctionName', Value: ref(logicalId) },
          { Name: 'Resource', Value: { 'Fn::Join': ['', [ref(logicalId), ':live']] } },
        ],
        Statistic: 'Sum',
        Threshold: 1,
        Period: 300,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    },
  );

  it.each(Object.keys(tables) as TableId[])(
    'alarms on throttled requests of the %s table for each operation the functions perform on it',
    (tableId) => {
      const operationsOnTable = [
        ...new Set(
          definitions.flatMap((d) => (d.access[tableId] ?? []).map((a) => a.replace('dynamodb:', ''))),
        ),
      ];
      template().hasResourceProperties('AWS::CloudWatch::Alarm', {
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Metrics: Match.arrayWith(
          operationsOnTable.map((operation) =>
            Match.objectLike({
              MetricStat: Match.objectLike({
                Metric: {
                  Namespace: 'AWS/DynamoDB',
                  MetricName: 'ThrottledRequests',
                  Dimensions: Match.arrayWith([
                    { Name: 'Operation', Value: operation },
                    { Name: 'TableName', Value: ref(tableLogicalId(tableId)) },
                  ]),
                },
              }),
            }),
          ),
        ),
      });
    },
  );

  it('subscribes the AlarmEmail parameter by e-mail only when it is not empty', () => {
    const parameters = json().Parameters ?? {};
    expect(parameters.AlarmEmail).toMatchObject({ Type: 'String', Default: '' });
    expect(json().Conditions?.HasAlarmEmail).toEqual({
      'Fn::Not': [{ 'Fn::Equals': [ref('AlarmEmail'), ''] }],
    });
    const subscriptions = Object.values(resourcesOfType(json(), 'AWS::SNS::Subscription'));
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]?.Condition).toBe('HasAlarmEmail');
    expect(subscriptions[0]?.Properties).toMatchObject({ Protocol: 'email', Endpoint: ref('AlarmEmail') });
  });
});

describe('production gradual deployments', () => {
  it('shifts by a canary or linear step long enough for the rollback alarms to fire', () => {
    const { trafficShifting, alarms } = environments.production;
    expect(trafficShifting).toEqual({ type: 'canary', percentage: 10, intervalMinutes: 10 });
    if (trafficShifting.type === 'allAtOnce' || !alarms)
      throw new Error('production shifts gradually, with alarms');
    expect(trafficShifting.intervalMinutes * 60).toBeGreaterThanOrEqual(minimumShiftIntervalSeconds(alarms));
  });
});

describe('staging deploys at once', () => {
  it('shifts all traffic at once, with no alarm to watch', () => {
    expect(environments.staging.trafficShifting).toEqual({ type: 'allAtOnce' });
  });
});

describe('staging has no alarms', () => {
  it('has no alarm, topic, subscription or AlarmEmail parameter', () => {
    const { json } = synthesized().environments.staging;
    expect(environments.staging.alarms).toBeUndefined();
    for (const type of ['AWS::CloudWatch::Alarm', 'AWS::SNS::Topic', 'AWS::SNS::Subscription']) {
      expect(Object.keys(resourcesOfType(json, type)), type).toEqual([]);
    }
    expect(json.Parameters?.AlarmEmail).toBeUndefined();
  });
});
