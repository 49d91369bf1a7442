/**
 * @module The event buses, rules, queues and queue event source mappings of a template, read as
 * CloudFormation defines them (README.md "Events and queues"; behaviour.md V1-V6, Q1-Q8, M1-M6).
 */

import type { QueueSettings } from '../sqs/queues.ts';
import { functionOf, referencedId, type Template } from '../template/api-model.ts';
import { compileEventPattern, type EventMatcher } from './event-pattern.ts';

type Resources = Template['Resources'];

/** A rule's target: a Lambda function (invoked asynchronously) or an SQS queue. */
export type TargetModel =
  | { id: string; kind: 'lambda'; functionId: string }
  | { id: string; kind: 'sqs'; queueId: string };

/** An `AWS::Events::Rule` with an event pattern. */
export interface RuleModel {
  logicalId: string;
  /** The name of its bus (`EventBusName`, default `default`). */
  busName: string;
  matches: EventMatcher;
  targets: TargetModel[];
}

/** An `AWS::Lambda::EventSourceMapping` reading a queue. */
export interface QueueMappingModel {
  logicalId: string;
  queueId: string;
  functionId: string;
  /** `BatchSize` (default 10, at most 10,000). */
  batchSize: number;
  /** `MaximumBatchingWindowInSeconds` (default 0). */
  batchingWindowSeconds: number;
  /** `FunctionResponseTypes` includes `ReportBatchItemFailures`. */
  reportBatchItemFailures: boolean;
  /** `ScalingConfig.MaximumConcurrency`, when set (2-1000). */
  maximumConcurrency?: number;
}

/** Everything of a template the local bus and queues serve. */
export interface EventsModel {
  /** Bus name by the `AWS::Events::EventBus` logical id. */
  buses: Record<string, string>;
  rules: RuleModel[];
  queues: QueueSettings[];
  queueMappings: QueueMappingModel[];
  /** Logical ids of every function a rule or a queue mapping invokes. */
  functionIds: string[];
  /**
   * Lambda's retries of a failed asynchronous invocation, by function logical id: an
   * `AWS::Lambda::EventInvokeConfig`'s `MaximumRetryAttempts` (0-2); absent: 2.
   */
  asyncRetries: Record<string, number>;
}

function invalid(logicalId: string, message: string): Error {
  return new Error(`template: ${logicalId}: ${message}`);
}

function ofType(resources: Resources, type: string) {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** A whole number property with a default. @throws when present and not a whole number */
function whole(value: unknown, fallback: number, owner: string, name: string): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number))
    throw invalid(owner, `${name} ${JSON.stringify(value)} is not a whole number`);
  return number;
}

/** The queue (logical id) a value's `Ref` or `Fn::GetAtt` names. */
function queueOf(value: unknown, resources: Resources): string | undefined {
  return referencedId(value, resources, ['AWS::SQS::Queue']);
}

function queueSettings(logicalId: string, properties: Record<string, unknown>, resources: Resources) {
  if (properties.FifoQueue === true || properties.FifoQueue === 'true')
    throw invalid(logicalId, 'FIFO queues are not served locally');
  const redrivePolicy = properties.RedrivePolicy as
    | { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown }
    | undefined;
  let redrive: QueueSettings['redrive'];
  if (redrivePolicy) {
    const deadLetterQueueId = queueOf(redrivePolicy.deadLetterTargetArn, resources);
    if (!deadLetterQueueId) throw invalid(logicalId, 'RedrivePolicy deadLetterTargetArn names no queue');
    redrive = {
      deadLetterQueueId,
      maxReceiveCount: whole(redrivePolicy.maxReceiveCount, 10, logicalId, 'maxReceiveCount'),
    };
  }
  const settings: QueueSettings = {
    logicalId,
    name: typeof properties.QueueName === 'string' ? properties.QueueName : logicalId,
    visibilityTimeoutSeconds: whole(properties.VisibilityTimeout, 30, logicalId, 'VisibilityTimeout'),
    retentionSeconds: whole(properties.MessageRetentionPeriod, 345_600, logicalId, 'MessageRetentionPeriod'),
    delaySeconds: whole(properties.DelaySeconds, 0, logicalId, 'DelaySeconds'),
    ...(redrive ? { redrive } : {}),
  };
  return settings;
}

/** The bus name an `EventBusName` value names: a bus's `Ref`, `Name` or `Arn`, or a literal name. */
function busNameOf(value: unknown, resources: Resources, buses: Record<string, string>, owner: string) {
  if (value === undefined) return 'default';
  if (typeof value === 'string') return value.split('/').pop() as string;
  const id = referencedId(value, resources, ['AWS::Events::EventBus']);
  const name = id ? buses[id] : undefined;
  if (!name) throw invalid(owner, `EventBusName ${JSON.stringify(value)} names no bus of the template`);
  return name;
}

/** Target properties that reshape or route the event, none served locally. */
const unservedTargetProperties = ['Input', 'InputPath', 'InputTransformer', 'RoleArn', 'SqsParameters'];

function ruleModel(
  logicalId: string,
  properties: Record<string, unknown>,
  resources: Resources,
  buses: Record<string, string>,
): RuleModel | undefined {
  if (properties.State === 'DISABLED') return undefined;
  if (properties.ScheduleExpression !== undefined && properties.EventPattern === undefined)
    throw invalid(logicalId, 'scheduled rules are not served locally');
  let matches: EventMatcher;
  try {
    matches = compileEventPattern(properties.EventPattern);
  } catch (error) {
    throw invalid(logicalId, (error as Error).message);
  }
  const targets = ((properties.Targets ?? []) as Record<string, unknown>[]).map((target): TargetModel => {
    const id = String(target.Id);
    const unserved = unservedTargetProperties.filter((name) => target[name] !== undefined);
    if (unserved.length > 0)
      throw invalid(logicalId, `target ${id}: ${unserved.join(', ')} not served locally`);
    const functionId = functionOf(target.Arn, resources);
    if (functionId) return { id, kind: 'lambda', functionId };
    const queueId = queueOf(target.Arn, resources);
    if (queueId) return { id, kind: 'sqs', queueId };
    throw invalid(logicalId, `target ${id}: ${JSON.stringify(target.Arn)} is neither a function nor a queue`);
  });
  return {
    logicalId,
    busName: busNameOf(properties.EventBusName, resources, buses, logicalId),
    matches,
    targets,
  };
}

function queueMappingModel(
  logicalId: string,
  properties: Record<string, unknown>,
  resources: Resources,
): QueueMappingModel | undefined {
  const queueId = queueOf(properties.EventSourceArn, resources);
  if (!queueId || properties.Enabled === false) return undefined;
  const functionId = functionOf(properties.FunctionName, resources);
  if (!functionId) throw invalid(logicalId, 'FunctionName names no function of the template');
  const scaling = (properties.ScalingConfig ?? {}) as { MaximumConcurrency?: unknown };
  return {
    logicalId,
    queueId,
    functionId,
    batchSize: whole(properties.BatchSize, 10, logicalId, 'BatchSize'),
    batchingWindowSeconds: whole(
      properties.MaximumBatchingWindowInSeconds,
      0,
      logicalId,
      'MaximumBatchingWindowInSeconds',
    ),
    reportBatchItemFailures: ((properties.FunctionResponseTypes ?? []) as unknown[]).includes(
      'ReportBatchItemFailures',
    ),
    ...(scaling.MaximumConcurrency !== undefined
      ? {
          maximumConcurrency: whole(scaling.MaximumConcurrency, 0, logicalId, 'MaximumConcurrency'),
        }
      : {}),
  };
}

/**
 * Reads the buses, rules, queues and queue mappings of `template`.
 * @throws Error naming the resource for what is not served locally (FIFO queues, scheduled rules, input
 *   transformers, pattern operators beyond exact, prefix, anything-but and exists)
 */
export function eventsModel(template: Template): EventsModel {
  const resources = template.Resources;
  const buses: Record<string, string> = {};
  for (const [logicalId, { Properties: properties = {} }] of ofType(resources, 'AWS::Events::EventBus')) {
    if (typeof properties.Name !== 'string') throw invalid(logicalId, 'an event bus needs a literal Name');
    buses[logicalId] = properties.Name;
  }
  const queues = ofType(resources, 'AWS::SQS::Queue').map(([logicalId, { Properties = {} }]) =>
    queueSettings(logicalId, Properties, resources),
  );
  const rules = ofType(resources, 'AWS::Events::Rule').flatMap(([logicalId, { Properties = {} }]) => {
    const rule = ruleModel(logicalId, Properties, resources, buses);
    return rule ? [rule] : [];
  });
  const queueMappings = ofType(resources, 'AWS::Lambda::EventSourceMapping').flatMap(
    ([logicalId, { Properties = {} }]) => {
      const mapping = queueMappingModel(logicalId, Properties, resources);
      return mapping ? [mapping] : [];
    },
  );
  const functionIds = new Set<string>();
  for (const rule of rules)
    for (const target of rule.targets) if (target.kind === 'lambda') functionIds.add(target.functionId);
  for (const mapping of queueMappings) functionIds.add(mapping.functionId);
  const asyncRetries: Record<string, number> = {};
  for (const [logicalId, { Properties = {} }] of ofType(resources, 'AWS::Lambda::EventInvokeConfig')) {
    const functionId = functionOf(Properties.FunctionName, resources);
    if (!functionId) throw invalid(logicalId, 'FunctionName names no function of the template');
    if (Properties.MaximumEventAgeInSeconds !== undefined || Properties.DestinationConfig !== undefined)
      throw invalid(logicalId, 'MaximumEventAgeInSeconds and DestinationConfig are not served locally');
    const retries = whole(Properties.MaximumRetryAttempts, 2, logicalId, 'MaximumRetryAttempts');
    if (retries < 0 || retries > 2) throw invalid(logicalId, 'MaximumRetryAttempts must be 0, 1 or 2');
    asyncRetries[functionId] = retries;
  }
  return { buses, rules, queues, queueMappings, functionIds: [...functionIds], asyncRetries };
}
