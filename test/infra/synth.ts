/**
 * Synthesis of both stacks for the infra tests, once per test file (bundling runs esbuild three times per
 * stack, so each file shares one synthesis through {@link synthesized}).
 *
 * The App is the one `infra/app.ts` builds (`createServiceApp`), with the cdk-nag plugin registered, written to
 * a temporary folder with asset metadata on (as the CDK CLI does, and as the SAM CLI needs to find each
 * function's bundle). Also: small readers of the synthesized CloudFormation JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll } from 'vitest';
import { type ApiGatewayAccountStack, accountStackName } from '#infra/account-stack.ts';
import type { InventoryStack } from '#infra/inventory-stack.ts';
import { createServiceApp } from '#infra/service-app.ts';
import { type EnvironmentName, environments, stackName } from '#infra/settings.ts';

/** A CloudFormation resource as synthesized. */
export interface CfnResourceJson {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Condition?: string;
  DependsOn?: string | string[];
  UpdatePolicy?: Record<string, unknown>;
}

/** A synthesized template. */
export interface TemplateJson {
  Resources: Record<string, CfnResourceJson>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
  Parameters?: Record<string, Record<string, unknown>>;
  Conditions?: Record<string, unknown>;
}

/** One synthesized environment. */
export interface SynthesizedEnvironment {
  /** The stack construct (for cdk-nag, which walks the construct tree). */
  stack: InventoryStack;
  /** The template for `aws-cdk-lib/assertions` matchers. */
  template: Template;
  /** The same template as plain JSON, for exact comparisons. */
  json: TemplateJson;
  /** Absolute path of `<stack>.template.json` in the cloud assembly. */
  templatePath: string;
}

/** The synthesis: the cloud assembly folder and each environment. */
export interface Synthesized {
  /** The cloud assembly folder (temporary; holds the templates and the `asset.*` bundle folders). */
  outdir: string;
  environments: Record<EnvironmentName, SynthesizedEnvironment>;
  /** The once-per-account stack (infra/account-stack.ts). */
  account: { stack: ApiGatewayAccountStack; json: TemplateJson; templatePath: string };
}

let cache: Synthesized | undefined;
let failure: unknown;

/**
 * Both stacks synthesized (the first call synthesizes; later calls in the same file reuse it).
 * @throws what synthesis threw (e.g. a cdk-nag finding), on the first and every later call
 */
export function synthesized(): Synthesized {
  if (cache) return cache;
  if (failure) throw failure;
  try {
    cache = synthesize();
  } catch (error) {
    failure = error;
    throw error;
  }
  return cache;
}

// Synthesis outlasts a test's timeout on a loaded machine: every file importing this pays it in a hook (hookTimeout);
// a failure is left for the tests to report, through synthesized().
beforeAll(() => {
  try {
    synthesized();
  } catch {}
});

function synthesize(): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'inventory-synth-'));
  const { app, stacks, account } = createServiceApp({
    outdir,
    context: { 'aws:cdk:enable-asset-metadata': true },
  });
  const assembly = app.synth();
  const result = {} as Record<EnvironmentName, SynthesizedEnvironment>;
  for (const name of Object.keys(environments) as EnvironmentName[]) {
    const artifact = assembly.getStackByName(stackName(name));
    result[name] = {
      stack: stacks[name],
      template: Template.fromJSON(artifact.template),
      json: artifact.template as TemplateJson,
      templatePath: join(outdir, artifact.templateFile),
    };
  }
  const accountArtifact = assembly.getStackByName(accountStackName);
  return {
    outdir,
    environments: result,
    account: {
      stack: account,
      json: accountArtifact.template as TemplateJson,
      templatePath: join(outdir, accountArtifact.templateFile),
    },
  };
}

/** Removes the cloud assembly folder of this file's synthesis. */
export function removeSynthesized(): void {
  if (cache) rmSync(cache.outdir, { recursive: true, force: true });
  cache = undefined;
}

/** The resources of `type`, by logical id. */
export function resourcesOfType(json: TemplateJson, type: string): Record<string, CfnResourceJson> {
  return Object.fromEntries(Object.entries(json.Resources).filter(([, resource]) => resource.Type === type));
}

/** The resource with this logical id. @throws when absent */
export function resource(json: TemplateJson, logicalId: string): CfnResourceJson {
  const found = json.Resources[logicalId];
  if (!found) throw new Error(`no resource ${logicalId} in the template`);
  return found;
}

/** `{ Ref: logicalId }`. */
export function ref(logicalId: string) {
  return { Ref: logicalId };
}

/** `{ 'Fn::GetAtt': [logicalId, attribute] }`. */
export function getAtt(logicalId: string, attribute: string) {
  return { 'Fn::GetAtt': [logicalId, attribute] };
}
