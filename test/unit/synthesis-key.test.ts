/**
 * The cache key of the tests' synthesis (test/support/synthesized-assembly.ts): a change to any input of `cdk
 * synth` gives another key, so that no run is served a stale assembly; a change elsewhere keeps it.
 */
import { appendFile, cp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTemporaryDirs, temporaryDir } from 'local-aws/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '#local/assembly.ts';
import { synthesisInputs, synthesisKey } from '#test/support/synthesized-assembly.ts';

afterAll(removeTemporaryDirs);

/** A copy of the project's synthesis inputs and of a file that is none (README.md) in a new folder. */
async function copyOfInputs(): Promise<string> {
  const root = await temporaryDir('synthesis-key-');
  for (const input of [...synthesisInputs, 'README.md']) {
    await cp(join(projectRoot, input), join(root, input), { recursive: true }).catch((error) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  return root;
}

/** A file of each input, relative to the root (cdk.context.json: absent, so it is created). */
const oneFileOf: Record<string, string> = {
  'cdk.json': 'cdk.json',
  'cdk.context.json': 'cdk.context.json',
  'package.json': 'package.json',
  'package-lock.json': 'package-lock.json',
  'tsconfig.json': 'tsconfig.json',
  patches: 'patches/@stryker-mutator+vitest-runner+9.6.1.patch',
  infra: 'infra/app.ts',
  lib: 'lib/inventory/pet-id.ts',
  functions: 'functions/update-inventory/handler.ts',
  'local/assembly.ts': 'local/assembly.ts',
};

describe('synthesisKey', () => {
  it('is the same for a copy of the inputs and a SHA-256 in hex', async () => {
    const root = await copyOfInputs();
    expect(synthesisKey(root)).toBe(synthesisKey(projectRoot));
    expect(synthesisKey(root)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names a file of every input', () => {
    expect(Object.keys(oneFileOf).toSorted()).toEqual(synthesisInputs.toSorted());
  });

  it.each(synthesisInputs)(
    'changes when a file of %s changes or goes, and is back with it',
    async (input) => {
      const root = await copyOfInputs();
      const file = join(root, oneFileOf[input] as string);
      const original = synthesisKey(root);
      const content = await readFile(file).catch(() => undefined);
      await appendFile(file, ' ');
      expect(synthesisKey(root)).not.toBe(original);
      await rm(file);
      if (content !== undefined) {
        expect(synthesisKey(root)).not.toBe(original);
        await writeFile(file, content);
      }
      expect(synthesisKey(root)).toBe(original);
    },
  );

  it('changes when a file of a folder is renamed', async () => {
    const root = await copyOfInputs();
    const before = synthesisKey(root);
    const file = join(root, 'lib/inventory/pet-id.ts');
    await rename(file, file.replace('pet-id', 'pet-ids'));
    expect(synthesisKey(root)).not.toBe(before);
  });

  it('changes when a file is added to a folder of the inputs', async () => {
    const root = await copyOfInputs();
    const before = synthesisKey(root);
    await writeFile(join(root, 'lib', 'new-module.ts'), '');
    expect(synthesisKey(root)).not.toBe(before);
  });

  it('keeps the key when a file that is no input changes', async () => {
    const root = await copyOfInputs();
    const before = synthesisKey(root);
    await appendFile(join(root, 'README.md'), 'more');
    await writeFile(join(root, 'docs.md'), 'new');
    expect(synthesisKey(root)).toBe(before);
  });
});
