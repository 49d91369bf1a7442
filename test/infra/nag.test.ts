/**
 * Static checks of both synthesized stacks: cdk-nag's AwsSolutions pack finds nothing unacknowledged, the
 * acknowledgements are exactly the reviewed list (a new one must be added here with its reason), and
 * `cfn-lint` finds no error in either template.
 */
import { spawnSync } from 'node:child_process';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, describe, expect, it } from 'vitest';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { type EnvironmentName, environments } from '#infra/settings.ts';
import { authorizer, eventFunctions, operations } from '#lib/api.ts';
import { itWithCfnLint } from '#test/support/cfn-lint.ts';
import { removeSynthesized, synthesized } from './synth.ts';

afterAll(removeSynthesized);

/**
 * Every acknowledged rule in the construct tree under `scope`: `{ path, id, reason }`, the path relative to the
 * stack and the id without the `Annotation::` prefix CDK records (cdk-nag ignores it too).
 */
function acknowledgements(scope: IConstruct) {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path.split('/').slice(1).join('/'),
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/** The acknowledgements every environment has: construct path and rule id. */
const everyEnvironment = [
  ['Api/RestApi', 'AwsSolutions-APIG2'],
  ['Api/RestApi', 'AwsSolutions-APIG3'],
  ['Api/RestApi', 'AwsSolutions-APIG6'],
  ['Api/RestApi', 'AwsSolutions-COG4'],
  [
    'DeploymentRole',
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
  ],
  // X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords on Resource * in each function role
  // (and dynamodb:ListStreams in recordChanges' role).
  ...[...operations, authorizer, ...Object.values(eventFunctions)].map((d) => [
    `${functionLogicalId(d)}Role`,
    'AwsSolutions-IAM5[Resource::*]',
  ]),
  // The streams' failure queue: itself a dead-letter queue, named by no redrive policy.
  ['ChangeRecordsFailureQueue', 'AwsSolutions-SQS3'],
];

/** The reviewed acknowledgements of each environment. */
const expectedAcknowledgements: Record<EnvironmentName, string[][]> = {
  staging: [
    ...everyEnvironment,
    ['InventoryTable', 'AwsSolutions-DDB3'],
    ['ApiKeysTable', 'AwsSolutions-DDB3'],
    ['OrdersTable', 'AwsSolutions-DDB3'],
    ['IdempotencyTable', 'AwsSolutions-DDB3'],
    ['InventoryHistoryTable', 'AwsSolutions-DDB3'],
    ['WebhookSubscriptionsTable', 'AwsSolutions-DDB3'],
    ['WebhookFailuresTable', 'AwsSolutions-DDB3'],
  ],
  production: everyEnvironment,
};

describe.each(Object.keys(environments) as EnvironmentName[])('%s stack', (name) => {
  it('has no unacknowledged cdk-nag AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks().validateScope(synthesized().environments[name].stack);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.description}`)).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges exactly the reviewed AwsSolutions rules, each with a reason naming this service', () => {
    const found = acknowledgements(synthesized().environments[name].stack);
    expect(found.map(({ path, id }) => [path, id]).sort()).toEqual(
      [...expectedAcknowledgements[name]].sort(),
    );
    for (const { reason } of found) {
      expect(reason).toMatch(/spec|contract|API key|access logs|test data|Error body/);
      expect(reason.length).toBeGreaterThan(60);
    }
  });
});

itWithCfnLint(
  'cfn-lint reports no error in the staging, production and once-per-account templates',
  (cfnLint) => {
    const paths = [
      ...Object.values(synthesized().environments).map((e) => e.templatePath),
      synthesized().account.templatePath,
    ];
    const result = spawnSync(cfnLint, ['--format', 'parseable', ...paths], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const errors = result.stdout.split('\n').filter((line) => /:E\d{4}:/.test(line));
    expect(errors).toEqual([]);
    // cfn-lint's exit code: bit 2 = errors, 4 = warnings, 8 = informational; 1 = it failed to run.
    expect(result.status === null ? 1 : result.status & 3).toBe(0);
  },
  120_000,
);
