/**
 * The synthesized stack of the suites that serve or read it: one `cdk synth` per set of inputs, on first use,
 * cached across runs and shared by parallel test files (docs/testing.md "One synthesis, cached").
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import { projectRoot, readStack, type ServedStack, synthCommand } from '#local/assembly.ts';

/**
 * Every file and folder of the project that `cdk synth` reads (cdk.json's app, infra/app.ts, and what it
 * imports and bundles: lib/ and functions/, the packages of the lock with patch-package's patches, the
 * `imports` of package.json and tsconfig.json, which esbuild reads), and the module that runs it.
 */
export const synthesisInputs = [
  'cdk.json',
  'cdk.context.json',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'patches',
  'infra',
  'lib',
  'functions',
  'local/assembly.ts',
];

/** The cache: one folder per key, `<key>.lock` while one is written, `<key>.failed` when that failed. */
const cacheRoot = join(projectRoot, 'node_modules', '.cache', 'pet-store-synth');

/** The assemblies kept: the ones used last (a run in another clone state may still read one). */
const keptAssemblies = 3;

/** How long a test file waits for another process's synthesis before it gives up. */
const waitLimitMs = 600_000;

/**
 * The cache key of a synthesis of the project at `root`: a SHA-256 (hex) of each file of
 * {@link synthesisInputs} (its path and content, in path order; a missing one counts as missing), the Node
 * version and the region the synthesis runs with. Any change to an input gives another key.
 */
export function synthesisKey(root = projectRoot): string {
  const hash = createHash('sha256').update(`${process.version}\0${synthCommand('').env.AWS_REGION}\0`);
  for (const input of synthesisInputs) {
    const path = join(root, input);
    const files = !existsSync(path)
      ? []
      : statSync(path).isDirectory()
        ? readdirSync(path, { recursive: true, withFileTypes: true })
            .filter((entry) => entry.isFile())
            .map((entry) => join(entry.parentPath, entry.name))
        : [path];
    hash.update(`${input}\0${files.length}\0`);
    for (const file of files.map((f) => relative(root, f).split(sep).join('/')).toSorted()) {
      hash
        .update(`${file}\0`)
        .update(readFileSync(join(root, file)))
        .update('\0');
    }
  }
  return hash.digest('hex');
}

let cached: string | undefined;

/**
 * The cloud assembly folder of the project as it is now: the cached one of its {@link synthesisKey}, else
 * synthesized into the cache (waiting, when another process synthesizes the same key, for its result).
 * Synchronous, so that it also serves a suite's module scope; it never calls Vitest, so it runs outside a test.
 * @throws Error with the CLI's output when that synthesis fails
 */
export function assemblyDir(): string {
  cached ??= cachedAssembly(synthesisKey());
  return cached;
}

/** This project's synthesized staging stack, served from its bundles. */
export function servedStagingStack(): Promise<ServedStack> {
  return readStack(assemblyDir(), 'staging');
}

/** The cache folder of `key`, synthesized by this process under the lock unless another process holds it. */
function cachedAssembly(key: string): string {
  const dir = join(cacheRoot, key);
  const lock = `${dir}.lock`;
  const failed = `${dir}.failed`;
  const deadline = Date.now() + waitLimitMs;
  mkdirSync(cacheRoot, { recursive: true });
  for (;;) {
    if (existsSync(dir)) {
      const now = new Date();
      utimesSync(dir, now, now);
      return dir;
    }
    // A synthesis that failed in this run (the same parent: Vitest's main process) is not retried per file.
    const failure = existsSync(failed) ? readFileSync(failed, 'utf8').split('\n') : [];
    if (failure[0] === String(process.ppid)) throw new Error(failure.slice(1).join('\n'));
    if (takeLock(lock)) {
      try {
        if (!existsSync(dir)) synthesizeInto(dir, failed);
      } finally {
        rmSync(lock, { force: true });
      }
      continue;
    }
    if (!holderAlive(lock)) rmSync(lock, { force: true });
    else if (Date.now() > deadline) throw new Error(`no synthesis after ${waitLimitMs} ms: ${lock} is held`);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

/** Creates `lock` holding this process's id; false when it exists. */
function takeLock(lock: string): boolean {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Whether the process named in `lock` runs (a lock just created and not yet written counts as held). */
function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lock, 'utf8'));
  } catch {
    return true;
  }
  if (!pid) return Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Synthesizes into a folder of this process, then renames it to `dir` (so that `dir` exists only complete), and
 * removes the assemblies beyond {@link keptAssemblies}. On failure writes `failed`: this run's parent, the output.
 */
function synthesizeInto(dir: string, failed: string): void {
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const { file, args, env } = synthCommand(partial);
  const result = spawnSync(file, args, { cwd: projectRoot, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) {
    rmSync(partial, { recursive: true, force: true });
    const message = `cdk synth failed (exit ${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`;
    writeFileSync(failed, `${process.ppid}\n${message}`);
    throw new Error(message);
  }
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another process that took a lock it thought stale renamed the same synthesis first.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  rmSync(failed, { force: true });
  pruneCache();
}

/** Removes every cache entry but the {@link keptAssemblies} assemblies used last and the locks in use. */
function pruneCache(): void {
  const entries = readdirSync(cacheRoot).map((name) => ({ name, path: join(cacheRoot, name) }));
  const assemblies = entries
    .filter(({ name }) => /^[0-9a-f]{64}$/.test(name))
    .map((entry) => ({ ...entry, used: statSync(entry.path).mtimeMs }))
    .toSorted((a, b) => b.used - a.used);
  const kept = new Set(assemblies.slice(0, keptAssemblies).map(({ name }) => name));
  for (const { name, path } of entries) {
    const key = name.slice(0, 64);
    const busy = existsSync(join(cacheRoot, `${key}.lock`));
    if (!kept.has(name) && !busy) rmSync(path, { recursive: true, force: true });
  }
}
