/**
 * Static checks of both synthesized stacks, read from the run's one synthesis (./synth.ts): cdk-nag's
 * AwsSolutions pack finds nothing unacknowledged, the acknowledgements are exactly the reviewed list (a new one
 * must be added here with its reason), and `cfn-lint` finds no error in either template. The findings are the
 * ones the App's own validation plugin reported into the assembly; one test proves that plugin runs on every
 * synthesis and that its findings reach the report this file reads, by adding a non-compliant queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { createServiceApp } from '#infra/service-app.ts';
import { type EnvironmentName, environments } from '#infra/settings.ts';
import { authorizer, eventFunctions, operations } from '#lib/api.ts';
import { itWithCfnLint } from '#test/support/cfn-lint.ts';
import { readSynthesized, synthesized } from './synth.ts';

const scratch = mkdtempSync(join(tmpdir(), 'inventory-nag-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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
    ['EventsTable', 'AwsSolutions-DDB3'],
    ['WebhookSubscriptionsTable', 'AwsSolutions-DDB3'],
    ['WebhookEndpointOwnersTable', 'AwsSolutions-DDB3'],
    ['WebhookAttemptsTable', 'AwsSolutions-DDB3'],
    ['WebhookFailuresTable', 'AwsSolutions-DDB3'],
  ],
  production: everyEnvironment,
};

describe.each(Object.keys(environments) as EnvironmentName[])('%s stack', (name) => {
  it('has no unacknowledged cdk-nag AwsSolutions finding', () => {
    expect(synthesized().environments[name].nagViolations).toEqual([]);
  });

  it('acknowledges exactly the reviewed AwsSolutions rules, each with a reason naming this service', () => {
    const found = synthesized().environments[name].acknowledgements;
    expect(found.map(({ path, id }) => [path, id]).sort()).toEqual(
      [...expectedAcknowledgements[name]].sort(),
    );
    for (const { reason } of found) {
      expect(reason).toMatch(/spec|contract|API key|access logs|test data|Error body/);
      expect(reason.length).toBeGreaterThan(60);
    }
  });
});

it('every synthesis runs the AwsSolutions checks: an unacknowledged finding stops it and is in its report', () => {
  // The one synthesis of this file: the App of infra/app.ts with a queue that neither enforces TLS nor has a
  // dead-letter queue, to see that the checks run and that the report read above carries what they find.
  // Without bundling (`aws:cdk:bundling-stacks: []`: no template here depends on the bundles) and without CDK's
  // built-in CloudFormation validation (an App prop; cfn-lint checks the templates above), so it costs little.
  const outdir = join(scratch, 'with-finding');
  const { app, account } = createServiceApp({
    outdir,
    builtinCloudFormationValidation: false,
    context: { 'aws:cdk:bundling-stacks': [] },
  });
  new Queue(account, 'NonCompliantQueue');
  expect(() => app.synth()).toThrow("Acknowledge with 'AwsSolutions::AwsSolutions-SQS4'");
  const withFinding = readSynthesized(outdir);
  expect(withFinding.account.nagViolations).toEqual([
    'AwsSolutions-SQS3: The SQS queue is not used as a dead-letter queue (DLQ) and does not have a DLQ enabled.',
    'AwsSolutions-SQS4: The SQS queue does not require requests to use SSL.',
  ]);
  for (const name of Object.keys(environments) as EnvironmentName[]) {
    expect(withFinding.environments[name].nagViolations).toEqual([]);
  }
}, 120_000);

itWithCfnLint('cfn-lint reports no error in the staging, production and once-per-account templates', () => [
  ...Object.values(synthesized().environments).map((e) => e.templatePath),
  synthesized().account.templatePath,
]);
