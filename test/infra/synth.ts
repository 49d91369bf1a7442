/**
 * The infra tests' reader of the project's one synthesis (docs/testing.md "One synthesis, cached"): the cloud
 * assembly that test/support/synthesized-assembly.ts writes (once per set of inputs, into its cache) with `cdk
 * synth` of infra/app.ts: both environments' stacks and the once-per-account stack, with cdk-nag's AwsSolutions
 * checks run as the App's validation plugin (infra/service-app.ts) and asset metadata on (the CLI's default; the
 * SAM CLI needs it to find each function's bundle). A test file reads the templates, the acknowledged rules and
 * the validation report from that folder instead of synthesizing again, and never writes into it.
 * Also: small readers of the synthesized CloudFormation JSON.
 */
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Manifest, type PolicyValidationReportJson } from 'aws-cdk-lib/cloud-assembly-schema';
import { CloudAssembly, VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { accountStackName } from '#infra/account-stack.ts';
import { type EnvironmentName, environments, stackName } from '#infra/settings.ts';
import { assemblyDir } from '#test/support/synthesized-assembly.ts';

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

/** A rule acknowledged with `Validations.acknowledge` on a construct of a stack, as recorded in the assembly. */
export interface Acknowledgement {
  /** The construct's path relative to its stack (`Api/RestApi`). */
  path: string;
  /** The rule id without the `Annotation::` prefix CDK records (cdk-nag ignores it too): `AwsSolutions-APIG2`. */
  id: string;
  reason: string;
}

/** One synthesized stack, read from the cloud assembly. */
export interface SynthesizedStack {
  /** The template for `aws-cdk-lib/assertions` matchers. */
  template: Template;
  /** The same template as plain JSON, for exact comparisons. */
  json: TemplateJson;
  /** Absolute path of `<stack>.template.json` in the cloud assembly. */
  templatePath: string;
  /** The stack's environment as the manifest records it: `aws://<account>/<region>`. */
  environment: string;
  /** Every rule acknowledged in the stack's construct tree (the stack's metadata in the assembly). */
  acknowledgements: Acknowledgement[];
  /**
   * Every violation cdk-nag's AwsSolutions checks reported on a construct of this stack, as `rule: description`,
   * from the assembly's validation report (CDK lists a plugin there only when it reported something).
   */
  nagViolations: string[];
}

/** The synthesis: the cloud assembly folder and each stack. */
export interface Synthesized {
  /** The cloud assembly folder (the cached one; holds the templates and the `asset.*` bundle folders). */
  outdir: string;
  environments: Record<EnvironmentName, SynthesizedStack>;
  /** The once-per-account stack (infra/account-stack.ts). */
  account: SynthesizedStack;
}

let cache: Synthesized | undefined;

/** The project's synthesis, read from its cloud assembly (once per test file). */
export function synthesized(): Synthesized {
  cache ??= readSynthesized(assemblyDir());
  return cache;
}

/**
 * Reads the cloud assembly `outdir` (written by `cdk synth` or `App.synth()` of createServiceApp).
 * @throws when a stack of createServiceApp or the validation report is missing from it
 */
export function readSynthesized(outdir: string): Synthesized {
  const assembly = new CloudAssembly(outdir);
  // Written by every synthesis that runs a validation plugin; absent (and a throw here) when none ran.
  const report = Manifest.loadValidationReport(join(outdir, VALIDATION_REPORT_FILE));
  const read = (name: string): SynthesizedStack => {
    const artifact = assembly.getStackByName(name);
    const json = artifact.template as TemplateJson;
    return {
      template: Template.fromJSON(json),
      json,
      templatePath: artifact.templateFullPath,
      environment: artifact.environment.name,
      acknowledgements: artifact
        .findMetadataByType(Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) =>
          Object.entries(entry.data as unknown as Record<string, string>).map(([id, reason]) => ({
            path: entry.path.split('/').slice(2).join('/'),
            id: id.replace(/^annotation::/i, ''),
            reason,
          })),
        ),
      nagViolations: nagViolationsOf(report, name),
    };
  };
  const result = {} as Record<EnvironmentName, SynthesizedStack>;
  for (const name of Object.keys(environments) as EnvironmentName[]) result[name] = read(stackName(name));
  return { outdir, environments: result, account: read(accountStackName) };
}

/** The name cdk-nag's AwsSolutions pack reports under. */
const awsSolutions = new AwsSolutionsChecks().name;

/** The AwsSolutions violations of `report` on constructs under the stack `name`, as `rule: description`. */
function nagViolationsOf(report: PolicyValidationReportJson, name: string): string[] {
  return report.pluginReports
    .filter((plugin) => plugin.pluginName === awsSolutions)
    .flatMap((plugin) => plugin.violations)
    .filter((violation) =>
      violation.violatingConstructs.some(({ constructPath }) => constructPath.startsWith(`${name}/`)),
    )
    .map((violation) => `${violation.ruleName}: ${violation.description}`);
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
