/**
 * infra/gradual-deployment.ts on its own: the traffic shifting of the settings becomes CodeDeploy's
 * configuration (canary and linear), and settings that CodeDeploy would reject, or under which the rollback
 * alarms could not fire before the shift completes, fail synthesis with a message naming the setting.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Alias, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { GradualDeployment, minimumShiftIntervalSeconds } from '#infra/gradual-deployment.ts';
import type { AlarmSettings, TrafficShifting } from '#infra/settings.ts';

const alarmSettings: AlarmSettings = {
  api5xxRate: 0.01,
  apiLatencyP99Ms: 1000,
  periodSeconds: 300,
  evaluationPeriods: 1,
  changeRecordsIteratorAgeMs: 60_000,
};

/** A stack with one inline function, its alias and a GradualDeployment of `trafficShifting`. */
function deploy(trafficShifting: TrafficShifting, alarms?: AlarmSettings): Template {
  const stack = new Stack(new App(), 'Test');
  const fn = new LambdaFunction(stack, 'Fn', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => 1;'),
  });
  const alias = new Alias(stack, 'FnAlias', { aliasName: 'live', version: fn.currentVersion });
  new GradualDeployment(stack, 'Deployment', {
    trafficShifting,
    aliases: { Fn: alias },
    rollbackAlarms: {},
    alarmSettings: alarms,
  });
  return Template.fromStack(stack);
}

describe('GradualDeployment', () => {
  it('renders a linear shift as a TimeBasedLinear deployment configuration', () => {
    deploy({ type: 'linear', percentage: 25, intervalMinutes: 3 }).hasResourceProperties(
      'AWS::CodeDeploy::DeploymentConfig',
      {
        ComputePlatform: 'Lambda',
        TrafficRoutingConfig: {
          Type: 'TimeBasedLinear',
          TimeBasedLinear: { LinearInterval: 3, LinearPercentage: 25 },
        },
      },
    );
  });

  it('renders a canary shift as a TimeBasedCanary deployment configuration', () => {
    deploy({ type: 'canary', percentage: 5, intervalMinutes: 15 }, alarmSettings).hasResourceProperties(
      'AWS::CodeDeploy::DeploymentConfig',
      {
        TrafficRoutingConfig: {
          Type: 'TimeBasedCanary',
          TimeBasedCanary: { CanaryInterval: 15, CanaryPercentage: 5 },
        },
      },
    );
  });

  it('uses CodeDeploy AllAtOnce and creates no configuration for allAtOnce', () => {
    const template = deploy({ type: 'allAtOnce' });
    template.resourceCountIs('AWS::CodeDeploy::DeploymentConfig', 0);
    template.hasResourceProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce',
    });
  });

  it('needs (evaluation periods + 1) alarm periods per shift step for the alarms to fire', () => {
    expect(minimumShiftIntervalSeconds(alarmSettings)).toBe(600);
    expect(minimumShiftIntervalSeconds({ ...alarmSettings, periodSeconds: 60, evaluationPeriods: 3 })).toBe(
      240,
    );
    expect(() =>
      deploy({ type: 'canary', percentage: 10, intervalMinutes: 10 }, alarmSettings),
    ).not.toThrow();
    expect(() => deploy({ type: 'canary', percentage: 10, intervalMinutes: 9 }, alarmSettings)).toThrow(
      'traffic shifting interval of 9 min is shorter than the 600 s the rollback alarms need to fire',
    );
  });

  it.each([0, 100, 12.5, -1])('refuses a percentage of %s', (percentage) => {
    expect(() => deploy({ type: 'linear', percentage, intervalMinutes: 1 })).toThrow(
      `traffic shifting percentage must be an integer from 1 to 99, not ${percentage}`,
    );
  });

  it.each([0, 1.5])('refuses an interval of %s minutes', (intervalMinutes) => {
    expect(() => deploy({ type: 'canary', percentage: 10, intervalMinutes })).toThrow(
      `traffic shifting interval must be a positive number of minutes, not ${intervalMinutes}`,
    );
  });
});
