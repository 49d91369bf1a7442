/** The alarms of an environment that has them, into one SNS topic (docs/operating.md "Gradual deployments and rollback"). */
import { CfnCondition, CfnParameter, type CfnResource, Duration, Fn } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Subscription, SubscriptionProtocol, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { AlarmSettings } from './settings.ts';

/** Properties of {@link ServiceAlarms}. */
export interface ServiceAlarmsProps {
  /** Thresholds and periods (infra/settings.ts). */
  settings: AlarmSettings;
  /** The API whose 5XX rate and latency are watched. */
  api: RestApi;
  /** Each function's alias `live` by alarm name prefix (the function's logical id, e.g. `ListInventoryFunction`). */
  functions: Readonly<Record<string, Alias>>;
  /**
   * The functions AWS invokes rather than the API (lib/api.ts `eventFunctions`), likewise: the same alarms, but
   * their deployments roll back on their own new-version errors only, not on the API's alarms.
   */
  eventFunctions?: Readonly<Record<string, Alias>>;
  /** The tables by alarm name prefix, each with the DynamoDB actions performed on it (`dynamodb:Scan`, ...). */
  tables: Readonly<Record<string, { table: ITable; actions: readonly string[] }>>;
}

/** The CloudFormation parameter that carries the alarm e-mail address (empty: no subscription). */
export const alarmEmailParameter = 'AlarmEmail';

/** The alarms, their topic and the optional e-mail subscription (stack parameter `AlarmEmail`). */
export class ServiceAlarms extends Construct {
  /** The SNS topic every alarm notifies (SSL enforced). */
  readonly topic: Topic;
  /** The alarms, in the order they are made. */
  readonly alarms: Alarm[] = [];
  /**
   * The alarms that stop and roll back a deployment of the function with this alarm name prefix: the API's 5XX
   * rate and p99 latency (API functions only), and the function's new-version errors (infra/gradual-deployment.ts).
   */
  readonly rollbackAlarms: Record<string, Alarm[]> = {};
  /** Consecutive breaching periods of every alarm (infra/settings.ts). */
  private readonly evaluationPeriods: number;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { settings } = props;
    const period = Duration.seconds(settings.periodSeconds);
    this.evaluationPeriods = settings.evaluationPeriods;

    this.topic = new Topic(this, 'Topic', { displayName: 'Pet store inventory alarms', enforceSSL: true });
    const email = new CfnParameter(scope, alarmEmailParameter, {
      type: 'String',
      default: '',
      allowedPattern: '^$|^[^@\\s]+@[^@\\s]+$',
      description: 'E-mail address notified by the alarms; empty for no subscription.',
    });
    const hasEmail = new CfnCondition(scope, 'HasAlarmEmail', {
      expression: Fn.conditionNot(Fn.conditionEquals(email.valueAsString, '')),
    });
    const subscription = new Subscription(this, 'EmailSubscription', {
      topic: this.topic,
      protocol: SubscriptionProtocol.EMAIL,
      endpoint: email.valueAsString,
    });
    (subscription.node.defaultChild as CfnResource).cfnOptions.condition = hasEmail;

    const alarm = this.add.bind(this);
    const above = ComparisonOperator.GREATER_THAN_THRESHOLD;
    const atLeast = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

    const api5xx = alarm(
      'Api5xxRateAlarm',
      props.api.metricServerError({ statistic: Stats.AVERAGE, period }),
      settings.api5xxRate,
      above,
    );
    const apiLatency = alarm(
      'ApiLatencyP99Alarm',
      props.api.metricLatency({ statistic: Stats.p(99), period }),
      settings.apiLatencyP99Ms,
      above,
    );
    const apiFunctions = Object.keys(props.functions);
    for (const [name, alias] of Object.entries({ ...props.functions, ...props.eventFunctions })) {
      const fn = alias.lambda;
      alarm(`${name}ErrorsAlarm`, fn.metricErrors({ statistic: Stats.SUM, period }), 1, atLeast);
      alarm(`${name}ThrottlesAlarm`, fn.metricThrottles({ statistic: Stats.SUM, period }), 1, atLeast);
      // Errors of the version being deployed only (through the alias): errors of the old version, which the
      // deployment may be fixing, do not stop it (docs/operating.md "Gradual deployments and rollback").
      const newVersionErrors = new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Errors',
        dimensionsMap: {
          FunctionName: fn.functionName,
          Resource: `${fn.functionName}:${alias.aliasName}`,
          ExecutedVersion: alias.version.version,
        },
        statistic: Stats.SUM,
        period,
      });
      const newVersion = alarm(`${name}NewVersionErrorsAlarm`, newVersionErrors, 1, atLeast);
      this.rollbackAlarms[name] = apiFunctions.includes(name)
        ? [api5xx, apiLatency, newVersion]
        : [newVersion];
    }
    for (const [name, { table, actions }] of Object.entries(props.tables)) {
      const operations = [...new Set(actions.map((action) => action.replace(/^dynamodb:/, '') as Operation))];
      const throttled = table.metricThrottledRequestsForOperations({ operations, period });
      alarm(`${name}ThrottledRequestsAlarm`, throttled, 1, atLeast);
    }
  }

  /**
   * A new alarm `name` on `metric` (over the settings' evaluation periods, missing data not breaching) that
   * notifies the topic.
   */
  add(name: string, metric: IMetric, threshold: number, comparison: ComparisonOperator): Alarm {
    const created = new Alarm(this, name, {
      alarmDescription: `Pet store inventory: ${name}`,
      metric,
      threshold,
      comparisonOperator: comparison,
      evaluationPeriods: this.evaluationPeriods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    created.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(created);
    return created;
  }
}
