/**
 * The synthesized templates against the limits of docs/contract.md "Authentication and authorization"):
 * per-key throttling through a usage plan whose keys the authorizer names (API key source AUTHORIZER, an API key
 * required on every method), reserved concurrency of every function, the outputs the key tool needs, and the
 * account-wide API Gateway role kept out of the service stacks in its own once-per-account stack. Expected
 * values come from infra/settings.ts and lib/api.ts.
 */
import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { type EnvironmentName, environments } from '#infra/settings.ts';
import { authorizer, eventFunctions, operations, stageName } from '#lib/api.ts';
import { getAtt, ref, resource, resourcesOfType, synthesized } from './synth.ts';

describe.each(Object.keys(environments) as EnvironmentName[])('%s stack', (name) => {
  const settings = environments[name];
  const json = () => synthesized().environments[name].json;
  const only = (type: string) => {
    const found = Object.entries(resourcesOfType(json(), type));
    expect(found, type).toHaveLength(1);
    return found[0] as [string, ReturnType<typeof resource>];
  };

  it('takes API keys from the authorizer (usageIdentifierKey), not from a client header', () => {
    const [, restApi] = only('AWS::ApiGateway::RestApi');
    expect(restApi.Properties.ApiKeySourceType).toBe('AUTHORIZER');
  });

  it('requires an API key on every method, so every request is throttled per key', () => {
    const methods = Object.values(resourcesOfType(json(), 'AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(operations.length);
    for (const method of methods) expect(method.Properties.ApiKeyRequired).toBe(true);
  });

  it(`has one usage plan on the stage ${stageName} with the per-key throttle of the settings`, () => {
    const [restApiId] = only('AWS::ApiGateway::RestApi');
    const [stageId] = only('AWS::ApiGateway::Stage');
    const [, plan] = only('AWS::ApiGateway::UsagePlan');
    expect(plan.Properties).toMatchObject({
      UsagePlanName: `InventoryService-${name}-default`,
      Throttle: {
        RateLimit: settings.apiKeys.throttle.rateLimit,
        BurstLimit: settings.apiKeys.throttle.burstLimit,
      },
      ApiStages: [{ ApiId: ref(restApiId), Stage: ref(stageId) }],
    });
    expect(plan.Properties.Quota).toBeUndefined();
  });

  it('declares no API key: the key tool creates one per key (lib/admin/gateway-keys.ts)', () => {
    expect(Object.keys(resourcesOfType(json(), 'AWS::ApiGateway::ApiKey'))).toEqual([]);
  });

  it.each([...operations, authorizer, ...Object.values(eventFunctions)].map((d) => [functionLogicalId(d)]))(
    `%s has the reserved concurrency of the settings`,
    (logicalId) => {
      expect(resource(json(), logicalId).Properties.ReservedConcurrentExecutions).toBe(
        settings.reservedConcurrency,
      );
    },
  );

  it('outputs the REST API id and the usage plan id for the key tool', () => {
    const [restApiId] = only('AWS::ApiGateway::RestApi');
    const [planId] = only('AWS::ApiGateway::UsagePlan');
    expect(json().Outputs?.RestApiId?.Value).toEqual(ref(restApiId));
    expect(json().Outputs?.UsagePlanId?.Value).toEqual(ref(planId));
  });

  it('declares no account-wide resource: no AWS::ApiGateway::Account, no role API Gateway assumes', () => {
    expect(Object.keys(resourcesOfType(json(), 'AWS::ApiGateway::Account'))).toEqual([]);
    const roles = Object.values(resourcesOfType(json(), 'AWS::IAM::Role'));
    expect(JSON.stringify(roles)).not.toContain('apigateway.amazonaws.com');
  });
});

describe('the once-per-account stack', () => {
  const json = () => synthesized().account.json;

  it('sets the account CloudWatch role of API Gateway to its own role, both retained', () => {
    const accounts = Object.values(resourcesOfType(json(), 'AWS::ApiGateway::Account'));
    expect(accounts).toHaveLength(1);
    const roles = Object.entries(resourcesOfType(json(), 'AWS::IAM::Role'));
    expect(roles).toHaveLength(1);
    const [roleId, role] = roles[0] as [string, ReturnType<typeof resource>];
    expect(accounts[0]?.Properties).toEqual({ CloudWatchRoleArn: getAtt(roleId, 'Arn') });
    expect(accounts[0]?.DeletionPolicy).toBe('Retain');
    expect(role.DeletionPolicy).toBe('Retain');
    expect(role.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' } },
      ],
    });
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain(
      'service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    );
    expect(Object.keys(json().Resources).sort()).toEqual(
      [roleId, Object.keys(resourcesOfType(json(), 'AWS::ApiGateway::Account'))[0]].sort(),
    );
  });

  it('has no unacknowledged cdk-nag finding, and acknowledges only the AWS managed logging policy', () => {
    const { nagViolations, acknowledgements } = synthesized().account;
    expect(nagViolations).toEqual([]);
    expect(acknowledgements.map(({ id }) => id)).toEqual([
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    ]);
  });
});
