/**
 * A copy of this run's cloud assembly whose staging template a test changes (the function bundles and every
 * other file are links to the run's own), to serve with `npm start -- --assembly` (docs/local-api.md "What it
 * serves").
 */
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Template } from 'local-aws';
import { temporaryDir } from 'local-aws/testing';
import { stackName } from '#infra/settings.ts';
import { assemblyDir } from './synthesized-assembly.ts';

/** A folder holding this run's assembly (or `source`) with the staging template as `change` returns it. */
export async function patchedAssembly(
  change: (template: Template) => Template,
  source = assemblyDir(),
): Promise<string> {
  const copy = await temporaryDir('patched-assembly-');
  const templateFile = `${stackName('staging')}.template.json`;
  for (const entry of await readdir(source)) {
    if (entry !== templateFile) await symlink(join(source, entry), join(copy, entry));
  }
  const template = JSON.parse(await readFile(join(source, templateFile), 'utf8')) as Template;
  await writeFile(join(copy, templateFile), JSON.stringify(change(template)));
  return copy;
}

/** `template` with every `AWS::SQS::Queue`'s `VisibilityTimeout` set to `seconds`. */
export function withVisibilityTimeout(template: Template, seconds: number): Template {
  const resources = Object.fromEntries(
    Object.entries(template.Resources).map(([logicalId, resource]) => [
      logicalId,
      resource.Type === 'AWS::SQS::Queue'
        ? { ...resource, Properties: { ...resource.Properties, VisibilityTimeout: seconds } }
        : resource,
    ]),
  );
  return { ...template, Resources: resources };
}
