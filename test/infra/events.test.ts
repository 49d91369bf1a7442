/**
 * The events path of the synthesized staging and production templates (docs/contract.md "History and events",
 * docs/architecture.md "Events and webhooks", docs/operating.md "Events and webhooks"): the stream mappings into
 * recordChanges, the event bus with its archive and exported name, the rule to fanOutWebhooks with its retries
 * and dead-letter queue, the two delivery lanes read by deliverWebhooks, and the production alarms of the path.
 * Expected values are written out from the design; the settings are checked against them once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#infra/bundling.ts';
import { functionLogicalId, InventoryStack } from '#infra/inventory-stack.ts';
import { type EnvironmentName, environments } from '#infra/settings.ts';
import { eventFunctions } from '#lib/api.ts';
import { serviceName } from '#lib/service-name.ts';
import { section, tableRows } from '#test/support/markdown.ts';
import { getAtt, ref, resource, resourcesOfType, synthesized, type TemplateJson } from './synth.ts';

const recordChangesAlias = `${functionLogicalId(eventFunctions.recordChanges)}Alias`;
const fanOutAlias = `${functionLogicalId(eventFunctions.fanOutWebhooks)}Alias`;
const deliverAlias = `${functionLogicalId(eventFunctions.deliverWebhooks)}Alias`;

/** How CDK names an alias `live` in a mapping's `FunctionName`: `<function name>:live` from the alias's ARN. */
const aliasFunctionName = (aliasId: string) => ({
  'Fn::Join': ['', [{ 'Fn::Select': [6, { 'Fn::Split': [':', ref(aliasId)] }] }, ':live']],
});

/** Days, hours and seconds in seconds. */
const days = (n: number) => n * 86_400;

/** The one statement of a queue's policy that denies every request without TLS. */
const denyWithoutTls = (queueId: string) => ({
  Action: 'sqs:*',
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
  Effect: 'Deny',
  Principal: { AWS: '*' },
  Resource: getAtt(queueId, 'Arn'),
});

/** The statements of the queue policies that apply to the queue `queueId`. */
function queueStatements(json: TemplateJson, queueId: string): unknown[] {
  return Object.values(resourcesOfType(json, 'AWS::SQS::QueuePolicy'))
    .filter((policy) => JSON.stringify(policy.Properties.Queues) === JSON.stringify([ref(queueId)]))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: unknown[] }).Statement);
}

describe('the settings of the events path', () => {
  it('archives events 7 days in staging and 90 days in production', () => {
    expect(environments.staging.events.archiveRetentionDays).toBe(7);
    expect(environments.production.events.archiveRetentionDays).toBe(90);
  });

  it('retries deliveries on the Standard Webhooks schedule: 8 attempts over more than 24 hours, each delay within 12 hours', () => {
    for (const settings of Object.values(environments)) {
      const delays = settings.events.webhookRetryDelaysSeconds;
      expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
      const total = delays.reduce((sum, delay) => sum + delay, 0);
      expect(total).toBeGreaterThanOrEqual(days(1));
      expect((total / 3600).toFixed(1)).toBe('27.6');
      for (const delay of delays) expect(delay).toBeLessThanOrEqual(43_200);
    }
  });
});

describe('synthesis refuses a retry schedule the delivery queue cannot hold', () => {
  /** Builds the staging stack with `delays`, without bundling (the check runs before any template is written). */
  const build = (delays: number[]) => () =>
    new InventoryStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Schedule', {
      settings: {
        ...environments.staging,
        events: { ...environments.staging.events, webhookRetryDelaysSeconds: delays },
      },
    });

  it('a delay over 12 hours, the longest visibility timeout SQS takes', () => {
    expect(build([5, 43_201])).toThrow(
      'webhook retry delay 43201 is not a whole number of seconds from 0 to 43200',
    );
    expect(build([5, 1.5])).toThrow('webhook retry delay 1.5 is not a whole number');
  });

  it('a first delay over 15 minutes, the longest message delay SQS takes (a delivery moves to the slow lane with it)', () => {
    expect(build([901, 5])).toThrow(
      "the first webhook retry delay 901 is over 900 s, SQS's longest message delay",
    );
    expect(build([900, 43_200])).not.toThrow();
  });

  it('delays adding up to the 4 days the queue keeps a message', () => {
    expect(build([900, ...Array.from({ length: 8 }, () => 43_200)])).toThrow(
      "webhook retry schedule of 346500 s outlasts the delivery queue's retention of 4 days",
    );
    expect(build([900, 43_200, 43_200])).not.toThrow();
  });
});

describe.each(Object.keys(environments) as EnvironmentName[])('%s stack', (name) => {
  const settings = environments[name];
  const json = () => synthesized().environments[name].json;
  /**
   * The properties of an SQS mapping from `queueId` into the alias `aliasId`: 10 per batch, partial batch
   * failures, at most `maximumConcurrency` batches at once (default the reserved concurrency).
   */
  const queueMapping = (
    queueId: string,
    aliasId: string,
    maximumConcurrency = settings.reservedConcurrency,
  ) => ({
    EventSourceArn: getAtt(queueId, 'Arn'),
    FunctionName: aliasFunctionName(aliasId),
    BatchSize: 10,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    ScalingConfig: { MaximumConcurrency: maximumConcurrency },
  });

  it('has exactly the resources of the events path: 2 stream mappings and 3 queue mappings, 1 bus, 1 archive, 1 rule, 6 queues, no asynchronous invocation', () => {
    const ids = (type: string) => Object.keys(resourcesOfType(json(), type)).sort();
    expect(ids('AWS::Lambda::EventSourceMapping')).toEqual([
      'DeliverWebhooksQueueMapping',
      'DeliverWebhooksSlowLaneMapping',
      'FanOutWebhooksQueueMapping',
      'RecordChangesInventoryStreamMapping',
      'RecordChangesOrdersStreamMapping',
    ]);
    expect(ids('AWS::Events::EventBus')).toEqual(['EventBus']);
    expect(ids('AWS::Events::Archive')).toEqual(['EventArchive']);
    expect(ids('AWS::Events::Rule')).toEqual(['WebhookFanOutRule']);
    expect(ids('AWS::SQS::Queue')).toEqual([
      'ChangeEventsQueue',
      'ChangeRecordsFailureQueue',
      'WebhookDeliveryDeadLetterQueue',
      'WebhookDeliveryQueue',
      'WebhookFanOutDeadLetterQueue',
      'WebhookSlowLaneQueue',
    ]);
    expect(ids('AWS::Lambda::EventInvokeConfig')).toEqual([]);
  });

  it.each([
    ['RecordChangesInventoryStreamMapping', 'InventoryTable'],
    ['RecordChangesOrdersStreamMapping', 'OrdersTable'],
  ])(
    "%s feeds the %s stream to recordChanges' alias: from the oldest record, 100 per batch within 1 s, bisected, retried until the records expire, one batch per shard, failures to the failure queue",
    (mappingId, tableId) => {
      const mapping = resource(json(), mappingId);
      expect(mapping.Properties).toEqual({
        EventSourceArn: getAtt(tableId, 'StreamArn'),
        FunctionName: aliasFunctionName(recordChangesAlias),
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 1,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: -1,
        MaximumRecordAgeInSeconds: -1,
        ParallelizationFactor: 1,
        DestinationConfig: { OnFailure: { Destination: getAtt('ChangeRecordsFailureQueue', 'Arn') } },
      });
      // Created after the role's grants: Lambda checks the stream permissions when it creates a mapping.
      expect(mapping.DependsOn).toEqual(
        expect.arrayContaining([
          'RecordChangesFunctionRole',
          expect.stringMatching(/^RecordChangesFunctionRoleDefaultPolicy/),
        ]),
      );
    },
  );

  it.each(['ChangeRecordsFailureQueue', 'WebhookFanOutDeadLetterQueue', 'WebhookDeliveryDeadLetterQueue'])(
    '%s is a dead-letter queue: encrypted, TLS only, messages kept 14 days',
    (queueId) => {
      expect(resource(json(), queueId).Properties).toEqual({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: days(14),
      });
      expect(queueStatements(json(), queueId)).toContainEqual(denyWithoutTls(queueId));
    },
  );

  it('names the bus after the stack and exports its name for other teams', () => {
    expect(resource(json(), 'EventBus').Properties).toEqual({ Name: `InventoryService-${name}` });
    expect(json().Outputs?.EventBusName).toEqual({
      Value: ref('EventBus'),
      Export: { Name: `InventoryService-${name}-EventBusName` },
      Description: expect.stringContaining('pet-store'),
    });
  });

  it(`archives every event of source pet-store for ${settings.events.archiveRetentionDays} days`, () => {
    expect(resource(json(), 'EventArchive').Properties).toMatchObject({
      SourceArn: getAtt('EventBus', 'Arn'),
      EventPattern: { source: ['pet-store'] },
      RetentionDays: settings.events.archiveRetentionDays,
    });
  });

  it('sends every event of source pet-store on the bus to the change-events queue, retried 185 times over 24 h, then to the fan-out dead-letter queue', () => {
    expect(resource(json(), 'WebhookFanOutRule').Properties).toMatchObject({
      EventBusName: ref('EventBus'),
      EventPattern: { source: ['pet-store'] },
      State: 'ENABLED',
      Targets: [
        {
          Arn: getAtt('ChangeEventsQueue', 'Arn'),
          Id: 'Target0',
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: days(1) },
          DeadLetterConfig: { Arn: getAtt('WebhookFanOutDeadLetterQueue', 'Arn') },
        },
      ],
    });
    // EventBridge may send to both queues for this rule only.
    for (const queueId of ['ChangeEventsQueue', 'WebhookFanOutDeadLetterQueue']) {
      expect(queueStatements(json(), queueId)).toContainEqual(
        expect.objectContaining({
          // CDK's queue target grants SendMessage with the two reads; the dead-letter grant is SendMessage alone.
          Action:
            queueId === 'ChangeEventsQueue'
              ? ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl']
              : 'sqs:SendMessage',
          Effect: 'Allow',
          Principal: { Service: 'events.amazonaws.com' },
          Condition: { ArnEquals: { 'aws:SourceArn': getAtt('WebhookFanOutRule', 'Arn') } },
          Resource: getAtt(queueId, 'Arn'),
        }),
      );
    }
  });

  it('keeps each change event 4 days, hidden 180 s (6 x the 30 s of fanOutWebhooks) while handled, and moves it to the fan-out dead-letter queue after 5 receives', () => {
    const timeout = resource(json(), functionLogicalId(eventFunctions.fanOutWebhooks)).Properties.Timeout;
    expect(timeout).toBe(30);
    expect(resource(json(), 'ChangeEventsQueue').Properties).toEqual({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      MessageRetentionPeriod: days(4),
      RedrivePolicy: {
        deadLetterTargetArn: getAtt('WebhookFanOutDeadLetterQueue', 'Arn'),
        maxReceiveCount: 5,
      },
    });
    expect(queueStatements(json(), 'ChangeEventsQueue')).toContainEqual(denyWithoutTls('ChangeEventsQueue'));
  });

  it(`feeds the change-events queue to fanOutWebhooks' alias: 10 per batch, partial batch failures, at most the reserved ${settings.reservedConcurrency} at once`, () => {
    const mapping = resource(json(), 'FanOutWebhooksQueueMapping');
    expect(mapping.Properties).toEqual(queueMapping('ChangeEventsQueue', fanOutAlias));
    expect(mapping.DependsOn).toEqual(expect.arrayContaining(['FanOutWebhooksFunctionRole']));
  });

  it.each(['WebhookDeliveryQueue', 'WebhookSlowLaneQueue'])(
    '%s keeps each delivery 4 days, hidden 180 s (6 x the 30 s of deliverWebhooks) while handled, and moves it to the one delivery dead-letter queue after 10 receives (8 attempts + 2)',
    (queueId) => {
      const deliverTimeout = resource(json(), functionLogicalId(eventFunctions.deliverWebhooks)).Properties
        .Timeout as number;
      expect(deliverTimeout).toBe(30);
      expect(resource(json(), queueId).Properties).toEqual({
        SqsManagedSseEnabled: true,
        VisibilityTimeout: 6 * deliverTimeout,
        MessageRetentionPeriod: days(4),
        RedrivePolicy: {
          deadLetterTargetArn: getAtt('WebhookDeliveryDeadLetterQueue', 'Arn'),
          maxReceiveCount: settings.events.webhookRetryDelaysSeconds.length + 1 + 2,
        },
      });
      expect(settings.events.webhookRetryDelaysSeconds.length + 1 + 2).toBe(10);
      expect(queueStatements(json(), queueId)).toEqual([denyWithoutTls(queueId)]);
      // The whole schedule fits in the retention.
      const schedule = settings.events.webhookRetryDelaysSeconds.reduce((sum, delay) => sum + delay, 0);
      expect(days(4)).toBeGreaterThan(schedule);
    },
  );

  it(`feeds the fast lane to deliverWebhooks' alias at most ${settings.reservedConcurrency - 2} batches at once and the slow lane at most 2: together the reserved ${settings.reservedConcurrency}`, () => {
    const fastLane = resource(json(), 'DeliverWebhooksQueueMapping');
    expect(fastLane.Properties).toEqual(
      queueMapping('WebhookDeliveryQueue', deliverAlias, settings.reservedConcurrency - 2),
    );
    const slowLane = resource(json(), 'DeliverWebhooksSlowLaneMapping');
    expect(slowLane.Properties).toEqual(queueMapping('WebhookSlowLaneQueue', deliverAlias, 2));
    for (const mapping of [fastLane, slowLane]) {
      expect(mapping.DependsOn).toEqual(expect.arrayContaining(['DeliverWebhooksFunctionRole']));
    }
  });

  it("tells deliverWebhooks both lanes (the fast lane's URL to delete each handled delivery at once, the slow lane's URL to move deliveries to, its ARN to know its records) and the fan-out both lanes", () => {
    const variables = (functionId: string) =>
      (resource(json(), functionId).Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
    expect(variables(functionLogicalId(eventFunctions.deliverWebhooks))).toMatchObject({
      WEBHOOK_DELIVERY_QUEUE_URL: ref('WebhookDeliveryQueue'),
      WEBHOOK_SLOW_LANE_QUEUE_URL: ref('WebhookSlowLaneQueue'),
      WEBHOOK_SLOW_LANE_QUEUE_ARN: getAtt('WebhookSlowLaneQueue', 'Arn'),
    });
    expect(variables(functionLogicalId(eventFunctions.fanOutWebhooks))).toMatchObject({
      WEBHOOK_DELIVERY_QUEUE_URL: ref('WebhookDeliveryQueue'),
      WEBHOOK_SLOW_LANE_QUEUE_URL: ref('WebhookSlowLaneQueue'),
    });
  });
});

describe('production alarms of the events path', () => {
  const alarms = environments.production.alarms;
  const template = () => synthesized().environments.production.template;

  it('alarms when recordChanges falls more than a minute behind the streams (IteratorAge, Maximum)', () => {
    expect(alarms?.changeRecordsIteratorAgeMs).toBe(60_000);
    template().hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: ref(functionLogicalId(eventFunctions.recordChanges)) }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 60_000,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  /** Asserts an alarm on any `Statistic` of the metric `MetricName` in `Namespace` with the dimension `Name`=`Value`. */
  function expectAlarmOnAny(
    Namespace: string,
    MetricName: string,
    [Name, Value]: [string, unknown],
    Statistic: string,
  ) {
    template().hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace,
      MetricName,
      Dimensions: [{ Name, Value }],
      Statistic,
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  }

  it.each(['ChangeRecordsFailureQueue', 'WebhookFanOutDeadLetterQueue', 'WebhookDeliveryDeadLetterQueue'])(
    'alarms on any message in %s',
    (queueId) => {
      const queueName = getAtt(queueId, 'QueueName');
      expectAlarmOnAny('AWS/SQS', 'ApproximateNumberOfMessagesVisible', ['QueueName', queueName], 'Maximum');
    },
  );

  it.each([
    ['any webhook delivery kept as a failure', 'WebhookDeliveriesFailed'],
    ['any endpoint disabled by the breaker', 'WebhookEndpointsDisabled'],
  ])('alarms on %s (%s, namespace and service like the other metrics)', (_what, metricName) => {
    expectAlarmOnAny('PetStoreInventory/production', metricName, ['service', serviceName], 'Sum');
  });

  it('docs/operating.md "Events and webhooks" says what to do for exactly these alarms', () => {
    const page = readFileSync(join(projectRoot, 'docs/operating.md'), 'utf8');
    const documented = tableRows(section(page, 'Events and webhooks')).map(([name = '']) =>
      name.replaceAll('`', ''),
    );
    const eventsAlarms = [
      'ChangeRecordsIteratorAgeAlarm',
      'ChangeRecordsFailureQueueAlarm',
      'WebhookFanOutDeadLetterQueueAlarm',
      'WebhookDeliveryDeadLetterQueueAlarm',
      'WebhookDeliveriesFailedAlarm',
      'WebhookEndpointsDisabledAlarm',
    ];
    expect([...documented].sort()).toEqual([...eventsAlarms].sort());
    const alarmIds = Object.keys(
      resourcesOfType(synthesized().environments.production.json, 'AWS::CloudWatch::Alarm'),
    );
    for (const name of eventsAlarms) {
      expect(
        alarmIds.filter((id) => new RegExp(`^Alarms${name}[0-9A-F]{8}$`).test(id)),
        name,
      ).toHaveLength(1);
    }
  });

  it('has none of them in staging', () => {
    expect(
      Object.keys(resourcesOfType(synthesized().environments.staging.json, 'AWS::CloudWatch::Alarm')),
    ).toEqual([]);
  });
});
