/** Vitest global setup: one `cdk synth` per run (docs/architecture.md "One table, three renderings"). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { readStack, type ServedStack, synthesize } from '#local/assembly.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cloud assembly folder of this run's synthesis. */
    assemblyDir: string;
  }
}

/** Synthesizes into a temporary folder and provides it as `assemblyDir`; returns the teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const assemblyDir = await mkdtemp(join(tmpdir(), 'test-assembly-'));
  await synthesize(assemblyDir);
  project.provide('assemblyDir', assemblyDir);
  return () => rm(assemblyDir, { recursive: true, force: true });
}

/** The cloud assembly folder of this run (inside a test file). */
export function assemblyDir(): string {
  return inject('assemblyDir');
}

/** This run's synthesized staging stack, served from its bundles. */
export function servedStagingStack(): Promise<ServedStack> {
  return readStack(assemblyDir(), 'staging');
}
