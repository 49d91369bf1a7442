/**
 * Change records' events and webhooks (docs/contract.md "History and events"; docs/architecture.md "Events and
 * webhooks"): the tables' stream mappings into recordChanges, the event bus with its archive, the rule to the
 * change-events queue read by fanOutWebhooks, the delivery queues (fast and slow lane) read by deliverWebhooks,
 * their dead-letter queues and alarms.
 */
import { CfnOutput, type CfnResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import { ComparisonOperator, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { EventSourceMapping, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { eventSource, eventsEnv } from '#lib/events/changes.ts';
import { serviceName } from '#lib/service-name.ts';
import { defaultDisableAfterSeconds } from '#lib/webhooks/breaker.ts';
import { webhookMetrics } from '#lib/webhooks/metric-names.ts';
import { retryScheduleProblem } from '#lib/webhooks/retry-schedule.ts';
import type { ServiceAlarms } from './service-alarms.ts';
import type { ServiceFunction } from './service-function.ts';
import type { AlarmSettings, EnvironmentSettings } from './settings.ts';

/**
 * Memory (MB) and timeout (seconds) of the event functions (lib/api.ts `eventFunctions`): recordChanges publishes
 * and writes a batch of up to 100 records, each request bounded by the DynamoDB client's 9 s worst case;
 * fanOutWebhooks scans the endpoints and sends their messages; deliverWebhooks waits up to 10 s per POST.
 */
export const eventFunctionSizing = {
  recordChanges: { memoryMb: 256, timeoutSeconds: 60 },
  fanOutWebhooks: { memoryMb: 256, timeoutSeconds: 30 },
  deliverWebhooks: { memoryMb: 256, timeoutSeconds: 30 },
} as const;

/**
 * The stream mappings of recordChanges (AWS::Lambda::EventSourceMapping on each table with a stream): from the
 * oldest record kept, batches of up to 100 gathered for at most 1 s (records on the bus within the contract's
 * 5 s), one batch at a time per shard, so each pet's records are processed in commit order. A failing batch is
 * retried for as long as the stream keeps its records (`MaximumRetryAttempts` and `MaximumRecordAgeInSeconds`
 * -1: "failed records are retried until the record expires", DynamoDB Streams keeping them 24 hours:
 * https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html), split in two on each failure
 * (`BisectBatchOnFunctionError`, which uses no retry: the records before a failing one are recorded rather than
 * held back with it), and only then described in the failure queue. docs/architecture.md "Events and webhooks".
 */
export const streamMapping = {
  startingPosition: StartingPosition.TRIM_HORIZON,
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  bisectBatchOnError: true,
  /** -1: until the records expire (CDK's `retryAttempts` and `maxRecordAge` cannot say -1; set as properties). */
  maximumRetryAttempts: -1,
  maximumRecordAgeSeconds: -1,
  parallelizationFactor: 1,
} as const;

/** Messages deliverWebhooks receives per invocation (SQS event source mapping `BatchSize`). */
export const deliveryBatchSize = 10;

/**
 * Concurrent batches of the slow lane's mapping (`MaximumConcurrency`, at least 2): taken from deliverWebhooks'
 * reserved concurrency, the fast lane's mapping gets the rest (at least 2), so the slow lane's long attempts
 * never take the fast lane's executions (docs/architecture.md "Events and webhooks").
 */
export const slowLaneConcurrency = 2;

/**
 * AWS's recommendation for a queue read by Lambda: a visibility timeout of at least six times the function's
 * timeout (AWS Lambda Developer Guide, "Using Lambda with Amazon SQS"), so a batch retried after throttling is
 * not received again while it still runs.
 */
export const visibilityTimeoutPerFunctionTimeout = 6;

/** Days a dead-letter queue keeps its messages: SQS's longest retention (AWS SQS Developer Guide, quotas). */
export const deadLetterRetentionDays = 14;

/** Days the delivery queue keeps a message: longer than the whole retry schedule (27.6 h by default). */
export const deliveryRetentionDays = 4;

/**
 * Receives of one delivery message before SQS moves it to the dead-letter queue: every attempt of the schedule
 * (one more than its delays) plus 2, so only a message whose handler crashed repeatedly lands there; the
 * handler itself keeps the last failure in the failures table.
 */
export function deliveryMaxReceiveCount(retryDelaysSeconds: readonly number[]): number {
  return retryDelaysSeconds.length + 1 + 2;
}

/** EventBridge's retries of one event towards the change-events queue (its defaults, written out): 185 over 24 h. */
export const ruleRetry = { retryAttempts: 185, maxEventAgeHours: 24 } as const;

/** Receives of one change event by fanOutWebhooks before SQS moves it to the fan-out's dead-letter queue. */
export const fanOutMaxReceiveCount = 5;

/** The value of `AWS_ENDPOINT_URL_EVENTBRIDGE` and `AWS_ENDPOINT_URL_SQS` deployed: empty, the regional endpoint. */
export const deployedAwsEndpoint = '';

/** The event functions' {@link ServiceFunction}s (lib/api.ts `eventFunctions`), by name. */
export interface EventFunctions {
  recordChanges: ServiceFunction;
  fanOutWebhooks: ServiceFunction;
  deliverWebhooks: ServiceFunction;
}

/** Properties of {@link ChangeEvents}. */
export interface ChangeEventsProps {
  /** The environment's settings (events, reserved concurrency). */
  settings: EnvironmentSettings;
  /** The tables with a stream (lib/tables.ts `stream`), by construct id (`InventoryTable`, `OrdersTable`). */
  streams: Readonly<Record<string, ITable>>;
  /** The event functions. */
  functions: EventFunctions;
}

/** The CloudFormation output of the bus's name, exported as `<stack>-EventBusName` for other teams' rules. */
export const eventBusOutput = 'EventBusName';

/** Every resource of the events path, wired to the event functions' aliases `live`. */
export class ChangeEvents extends Construct {
  /** The environment's event bus (named after the stack). */
  readonly bus: EventBus;
  /** The rule that sends every event of the service to the change-events queue. */
  readonly rule: Rule;
  /** Where the stream mappings send the batches recordChanges kept failing on. */
  readonly changeRecordsFailureQueue: Queue;
  /** Every event of the service, as text, read by fanOutWebhooks (the rule's target). */
  readonly changeEventsQueue: Queue;
  /** The events EventBridge could not send to the change-events queue, or that fanOutWebhooks kept failing on. */
  readonly fanOutDeadLetterQueue: Queue;
  /** The fast lane: one message per first attempt of an enabled endpoint's delivery, read by deliverWebhooks. */
  readonly deliveryQueue: Queue;
  /** The slow lane: retries, and the deliveries of endpoints not enabled, read by deliverWebhooks. */
  readonly slowLaneQueue: Queue;
  /** The delivery messages of either lane received too often (crashes of deliverWebhooks). */
  readonly deliveryDeadLetterQueue: Queue;
  /** The streams' consumer, whose iterator age is watched. */
  private readonly recordChanges: ServiceFunction;

  /**
   * @throws Error when a retry delay is not a whole number of seconds from 0 to 43,200 (SQS's visibility limit),
   *   the first is over 900 (SQS's message delay limit), or the delays add up to the delivery queue's retention
   *   or more
   */
  constructor(scope: Construct, id: string, props: ChangeEventsProps) {
    super(scope, id);
    const { settings, functions } = props;
    const { recordChanges, fanOutWebhooks, deliverWebhooks } = functions;
    this.recordChanges = recordChanges;
    const stack = Stack.of(this);
    const delays = settings.events.webhookRetryDelaysSeconds;
    const problem = retryScheduleProblem(delays);
    if (problem !== undefined) throw new Error(problem);
    const schedule = delays.reduce((sum, delay) => sum + delay, 0);
    if (schedule >= deliveryRetentionDays * 86_400) {
      throw new Error(
        `webhook retry schedule of ${schedule} s outlasts the delivery queue's retention of ${deliveryRetentionDays} days`,
      );
    }

    const queue = (logicalId: string, props: ConstructorParameters<typeof Queue>[2]) => {
      const created = new Queue(scope, logicalId, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        ...props,
      });
      (created.node.defaultChild as CfnResource).overrideLogicalId(logicalId);
      return created;
    };
    const deadLetterQueue = (logicalId: string) =>
      queue(logicalId, { retentionPeriod: Duration.days(deadLetterRetentionDays) });
    /**
     * The SQS mapping `logicalId` from `source` into `reader`'s alias `live`, `reader` granted to consume it:
     * batches of `deliveryBatchSize`, ReportBatchItemFailures, at most `maxConcurrency` batches at once (default
     * the reserved concurrency; SQS mappings take 2 or more), so the mappings of a function never invoke into
     * throttles (which count as receives): docs/architecture.md "Events and webhooks".
     */
    const queueMapping = (
      logicalId: string,
      source: Queue,
      reader: ServiceFunction,
      maxConcurrency = Math.max(2, settings.reservedConcurrency),
    ) => {
      source.grantConsumeMessages(reader);
      const mapping = new EventSourceMapping(scope, logicalId, {
        target: reader.live,
        eventSourceArn: source.queueArn,
        batchSize: deliveryBatchSize,
        reportBatchItemFailures: true,
        maxConcurrency,
      });
      // Lambda checks the role when it creates the mapping: the grants must exist first.
      mapping.node.addDependency(reader.role as Construct);
      (mapping.node.defaultChild as CfnResource).overrideLogicalId(logicalId);
    };

    // recordChanges: the tables' streams -> change records -> the bus.
    this.changeRecordsFailureQueue = deadLetterQueue('ChangeRecordsFailureQueue');
    new CfnOutput(scope, 'ChangeRecordsFailureQueueUrl', {
      value: this.changeRecordsFailureQueue.queueUrl,
      description: "The stream mappings' on-failure queue: change records lost (npm run webhooks -- lost)",
    });
    for (const [tableId, table] of Object.entries(props.streams)) {
      recordChanges.readStream(table);
      const logicalId = `RecordChanges${tableId.replace(/Table$/, '')}StreamMapping`;
      const mapping = new EventSourceMapping(scope, logicalId, {
        target: recordChanges.live,
        eventSourceArn: table.tableStreamArn,
        startingPosition: streamMapping.startingPosition,
        batchSize: streamMapping.batchSize,
        maxBatchingWindow: Duration.seconds(streamMapping.maxBatchingWindowSeconds),
        bisectBatchOnError: streamMapping.bisectBatchOnError,
        parallelizationFactor: streamMapping.parallelizationFactor,
        onFailure: new SqsDlq(this.changeRecordsFailureQueue),
      });
      const cfnMapping = mapping.node.defaultChild as CfnResource;
      cfnMapping.addPropertyOverride('MaximumRetryAttempts', streamMapping.maximumRetryAttempts);
      cfnMapping.addPropertyOverride('MaximumRecordAgeInSeconds', streamMapping.maximumRecordAgeSeconds);
      // Lambda checks the role when it creates the mapping: the grants must exist first.
      mapping.node.addDependency(recordChanges.role as Construct);
      cfnMapping.overrideLogicalId(logicalId);
    }

    this.bus = new EventBus(scope, 'EventBus', { eventBusName: stack.stackName });
    (this.bus.node.defaultChild as CfnResource).overrideLogicalId('EventBus');
    const archive = this.bus.archive('EventArchive', {
      description: `Every event of the ${serviceName} service (${settings.name}), for replay`,
      eventPattern: { source: [eventSource] },
      retention: Duration.days(settings.events.archiveRetentionDays),
    });
    (archive.node.defaultChild as CfnResource).overrideLogicalId('EventArchive');
    this.bus.grantPutEventsTo(recordChanges);
    recordChanges.addEnvironment(eventsEnv.busName, this.bus.eventBusName);
    recordChanges.addEnvironment('AWS_ENDPOINT_URL_EVENTBRIDGE', deployedAwsEndpoint);
    new CfnOutput(scope, eventBusOutput, {
      value: this.bus.eventBusName,
      exportName: `${stack.stackName}-${eventBusOutput}`,
      description: `The event bus (source ${eventSource}: inventory.changed, order.changed), for other teams' rules`,
    });

    // fanOutWebhooks: every event of the service -> the change-events queue -> one delivery message per
    // matching endpoint. A queue rather than a Lambda target: its body is the event as text, so the fan-out
    // reads int64 ids exactly, and a failing event is retried on its own (ReportBatchItemFailures).
    this.fanOutDeadLetterQueue = deadLetterQueue('WebhookFanOutDeadLetterQueue');
    this.changeEventsQueue = queue('ChangeEventsQueue', {
      visibilityTimeout: Duration.seconds(
        visibilityTimeoutPerFunctionTimeout * eventFunctionSizing.fanOutWebhooks.timeoutSeconds,
      ),
      retentionPeriod: Duration.days(deliveryRetentionDays),
      deadLetterQueue: { queue: this.fanOutDeadLetterQueue, maxReceiveCount: fanOutMaxReceiveCount },
    });
    this.rule = new Rule(scope, 'WebhookFanOutRule', {
      eventBus: this.bus,
      description: 'Every event of the service, to the change-events queue of fanOutWebhooks',
      eventPattern: { source: [eventSource] },
    });
    this.rule.addTarget(
      new SqsQueue(this.changeEventsQueue, {
        deadLetterQueue: this.fanOutDeadLetterQueue,
        retryAttempts: ruleRetry.retryAttempts,
        maxEventAge: Duration.hours(ruleRetry.maxEventAgeHours),
      }),
    );
    (this.rule.node.defaultChild as CfnResource).overrideLogicalId('WebhookFanOutRule');
    queueMapping('FanOutWebhooksQueueMapping', this.changeEventsQueue, fanOutWebhooks);

    // deliverWebhooks: the two lanes (docs/architecture.md "Events and webhooks"), the slow lane's retries by
    // visibility timeout, one dead-letter queue for both.
    this.deliveryDeadLetterQueue = deadLetterQueue('WebhookDeliveryDeadLetterQueue');
    const deliveryLane = (logicalId: string) =>
      queue(logicalId, {
        visibilityTimeout: Duration.seconds(
          visibilityTimeoutPerFunctionTimeout * eventFunctionSizing.deliverWebhooks.timeoutSeconds,
        ),
        retentionPeriod: Duration.days(deliveryRetentionDays),
        deadLetterQueue: {
          queue: this.deliveryDeadLetterQueue,
          maxReceiveCount: deliveryMaxReceiveCount(delays),
        },
      });
    this.deliveryQueue = deliveryLane('WebhookDeliveryQueue');
    this.slowLaneQueue = deliveryLane('WebhookSlowLaneQueue');
    for (const lane of [this.deliveryQueue, this.slowLaneQueue]) lane.grantSendMessages(fanOutWebhooks);
    fanOutWebhooks.addEnvironment(eventsEnv.deliveryQueueUrl, this.deliveryQueue.queueUrl);
    fanOutWebhooks.addEnvironment(eventsEnv.slowLaneQueueUrl, this.slowLaneQueue.queueUrl);
    fanOutWebhooks.addEnvironment('AWS_ENDPOINT_URL_SQS', deployedAwsEndpoint);
    queueMapping(
      'DeliverWebhooksQueueMapping',
      this.deliveryQueue,
      deliverWebhooks,
      Math.max(2, settings.reservedConcurrency - slowLaneConcurrency),
    );
    queueMapping('DeliverWebhooksSlowLaneMapping', this.slowLaneQueue, deliverWebhooks, slowLaneConcurrency);
    this.slowLaneQueue.grantSendMessages(deliverWebhooks);
    deliverWebhooks.addEnvironment(eventsEnv.deliveryQueueUrl, this.deliveryQueue.queueUrl);
    deliverWebhooks.addEnvironment(eventsEnv.slowLaneQueueUrl, this.slowLaneQueue.queueUrl);
    deliverWebhooks.addEnvironment(eventsEnv.slowLaneQueueArn, this.slowLaneQueue.queueArn);
    deliverWebhooks.addEnvironment(eventsEnv.retryDelays, delays.join(','));
    deliverWebhooks.addEnvironment(eventsEnv.disableAfterSeconds, String(defaultDisableAfterSeconds));
    deliverWebhooks.addEnvironment(eventsEnv.urlPolicy, 'public-https');
    deliverWebhooks.addEnvironment('AWS_ENDPOINT_URL_SQS', deployedAwsEndpoint);

    Validations.of(this.changeRecordsFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the on-failure destination of the stream mappings of recordChanges (docs/contract.md "History and events", docs/operating.md "Events and webhooks"); no redrive policy names it, so cdk-nag cannot see it.',
    });
  }

  /**
   * The production alarms of the events path, on `alarms`' topic: recordChanges late (IteratorAge), any message
   * in the three dead-letter queues, any webhook delivery kept as a failure (`WebhookDeliveriesFailed`), any
   * endpoint disabled by the breaker (`WebhookEndpointsDisabled`).
   */
  addAlarms(alarms: ServiceAlarms, settings: AlarmSettings, metricsNamespace: string): void {
    const period = Duration.seconds(settings.periodSeconds);
    const atLeast = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
    alarms.add(
      'ChangeRecordsIteratorAgeAlarm',
      this.recordChanges.metric('IteratorAge', { statistic: Stats.MAXIMUM, period }),
      settings.changeRecordsIteratorAgeMs,
      ComparisonOperator.GREATER_THAN_THRESHOLD,
    );
    for (const [name, queue] of [
      ['ChangeRecordsFailureQueueAlarm', this.changeRecordsFailureQueue],
      ['WebhookFanOutDeadLetterQueueAlarm', this.fanOutDeadLetterQueue],
      ['WebhookDeliveryDeadLetterQueueAlarm', this.deliveryDeadLetterQueue],
    ] as const) {
      alarms.add(
        name,
        queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period }),
        1,
        atLeast,
      );
    }
    for (const [name, metricName] of [
      ['WebhookDeliveriesFailedAlarm', webhookMetrics.deliveriesFailed],
      ['WebhookEndpointsDisabledAlarm', webhookMetrics.endpointsDisabled],
    ] as const) {
      alarms.add(
        name,
        new Metric({
          namespace: metricsNamespace,
          metricName,
          dimensionsMap: { service: serviceName },
          statistic: Stats.SUM,
          period,
        }),
        1,
        atLeast,
      );
    }
  }
}
