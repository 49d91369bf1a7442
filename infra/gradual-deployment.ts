/** CodeDeploy traffic shifting of each function's alias `live`: docs/operating.md "Gradual deployments and rollback". */
import { type CfnResource, Duration, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ILambdaDeploymentConfig,
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { AlarmSettings, TrafficShifting } from './settings.ts';

/** Properties of a {@link GradualDeployment}. */
export interface GradualDeploymentProps {
  /** How traffic moves to a new version (infra/settings.ts). */
  trafficShifting: TrafficShifting;
  /** Each function's alias `live`, by the function's logical id (e.g. `ListInventoryFunction`). */
  aliases: Readonly<Record<string, Alias>>;
  /** The alarms that stop and roll back each function's deployment, by logical id; none when absent. */
  rollbackAlarms: Readonly<Record<string, readonly IAlarm[]>>;
  /** The settings of those alarms (their period bounds the shift interval), when there are alarms. */
  alarmSettings?: AlarmSettings;
}

/**
 * The shortest shift interval, in seconds, in which the rollback alarms can fire: `evaluationPeriods` full
 * periods after the shift, plus the period already under way when it started.
 */
export function minimumShiftIntervalSeconds(alarms: AlarmSettings): number {
  return (alarms.evaluationPeriods + 1) * alarms.periodSeconds;
}

/** The CodeDeploy application and a deployment group per function, shifting its alias `live`. */
export class GradualDeployment extends Construct {
  /** The deployment group of each function, by the function's logical id. */
  readonly groups: Readonly<Record<string, LambdaDeploymentGroup>>;

  /**
   * @throws Error when `percentage` is not an integer from 1 to 99, `intervalMinutes` not a positive integer,
   *   or the interval too short for the rollback alarms to fire ({@link minimumShiftIntervalSeconds})
   */
  constructor(scope: Construct, id: string, props: GradualDeploymentProps) {
    super(scope, id);
    const application = new LambdaApplication(scope, 'DeploymentApplication');
    const role = new Role(scope, 'DeploymentRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: "Lets CodeDeploy move each function's alias live and read the rollback alarms",
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited'),
      ],
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        'The service role of the gradual deployments (docs/operating.md "Gradual deployments and rollback"): AWSCodeDeployRoleForLambdaLimited is the AWS managed policy AWS documents for CodeDeploy Lambda deployments (read alarms, read and update aliases, as specified in the deployment groups).',
    });
    const deploymentConfig = this.deploymentConfig(props);
    const groups: Record<string, LambdaDeploymentGroup> = {};
    for (const [name, alias] of Object.entries(props.aliases)) {
      const alarms = [...(props.rollbackAlarms[name] ?? [])];
      groups[name] = new LambdaDeploymentGroup(scope, `${name}DeploymentGroup`, {
        application,
        alias,
        deploymentConfig,
        role,
        alarms,
        autoRollback: {
          failedDeployment: true,
          stoppedDeployment: true,
          deploymentInAlarm: alarms.length > 0,
        },
      });
    }
    this.groups = groups;
    for (const [construct, logicalId] of [
      [application, 'DeploymentApplication'],
      [role, 'DeploymentRole'],
      ...Object.entries(groups).map(([name, group]) => [group, `${name}DeploymentGroup`] as const),
    ] as const) {
      (construct.node.defaultChild as CfnResource).overrideLogicalId(logicalId);
    }
  }

  /** CodeDeploy's `AllAtOnce`, or a deployment configuration of the settings' canary or linear shift. */
  private deploymentConfig({
    trafficShifting,
    alarmSettings,
  }: GradualDeploymentProps): ILambdaDeploymentConfig {
    if (trafficShifting.type === 'allAtOnce') return LambdaDeploymentConfig.ALL_AT_ONCE;
    const { type, percentage, intervalMinutes } = trafficShifting;
    if (!Number.isInteger(percentage) || percentage < 1 || percentage > 99) {
      throw new Error(`traffic shifting percentage must be an integer from 1 to 99, not ${percentage}`);
    }
    if (!Number.isInteger(intervalMinutes) || intervalMinutes < 1) {
      throw new Error(
        `traffic shifting interval must be a positive number of minutes, not ${intervalMinutes}`,
      );
    }
    if (alarmSettings && intervalMinutes * 60 < minimumShiftIntervalSeconds(alarmSettings)) {
      throw new Error(
        `traffic shifting interval of ${intervalMinutes} min is shorter than the ${minimumShiftIntervalSeconds(alarmSettings)} s the rollback alarms need to fire`,
      );
    }
    const interval = Duration.minutes(intervalMinutes);
    const trafficRouting =
      type === 'canary'
        ? TrafficRouting.timeBasedCanary({ interval, percentage })
        : TrafficRouting.timeBasedLinear({ interval, percentage });
    const config = new LambdaDeploymentConfig(this, 'Config', { trafficRouting });
    (config.node.defaultChild as CfnResource).overrideLogicalId('DeploymentConfig');
    return config;
  }
}
