/**
 * Module load time of each bundle: how long `await import(bundle)` takes in a fresh Node process, i.e. the
 * part of a Lambda cold start ("Init duration") that the bundle controls. Every sample is a new process; the
 * bundles are sampled in interleaved rounds (each round loads every bundle once, in a rotating order) so
 * that drift of the machine affects all of them alike. The import is timed inside the child
 * (`performance.now()` around the dynamic import), so Node's own start-up (~40 ms, the same for every bundle)
 * is excluded; the whole process's wall time is recorded too.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { type Summary, summarize } from './stats.ts';

/**
 * The child's program: define the Lambda runtime's streaming globals (module at argv[2]; the runtime has them
 * before it loads a handler), then time the import of the bundle at argv[1], print the wall-clock milliseconds
 * and the CPU milliseconds (user + system, all threads) it took, as JSON.
 */
const childProgram = [
  '(await import(process.argv[2])).installStreamingRuntime();',
  'const cpu = process.cpuUsage();',
  'const start = performance.now();',
  'await import(process.argv[1]);',
  'const wall = performance.now() - start;',
  'const { user, system } = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify([wall, (user + system) / 1000]));',
].join('\n');

const streamingRuntime = new URL('../infra/local/response-streaming.ts', import.meta.url).href;

/** One sample: milliseconds of the import (wall clock and CPU), and of the whole process (spawn to exit). */
interface Sample {
  importMs: number;
  importCpuMs: number;
  processMs: number;
}

/** Loads `file` in a fresh `node` (this process's binary) with `env` and `nodeOptions`; one sample. */
function sampleLoad(file: string, env: Record<string, string>, nodeOptions: string): Promise<Sample> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', childProgram, pathToFileURL(file).href, streamingRuntime],
      {
        env: { PATH: process.env.PATH ?? '', ...env, NODE_OPTIONS: nodeOptions },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      let figures: unknown;
      try {
        figures = JSON.parse(out);
      } catch {
        figures = undefined;
      }
      if (code !== 0 || !Array.isArray(figures)) {
        reject(new Error(`loading ${file} failed (exit ${code}): ${err.trim() || out.trim()}`));
      } else {
        const [importMs, importCpuMs] = figures as [number, number];
        resolve({ importMs, importCpuMs, processMs: performance.now() - start });
      }
    });
  });
}

/** Load-time figures of one bundle (milliseconds). */
export interface LoadTime {
  name: string;
  /** `await import()` of the bundle, in the child: wall clock (what Lambda's Init duration counts). */
  import: Summary;
  /** The same import in CPU time (user + system): insensitive to other processes competing for the cores. */
  importCpu: Summary;
  /** The whole child process, spawn to exit (Node start-up included). */
  process: Summary;
}

/**
 * Samples every bundle `rounds` times in fresh processes, interleaved (see the module docstring).
 * @param bundles name and absolute path of each bundle
 * @param env environment of the children (what the functions read at init)
 * @param nodeOptions `NODE_OPTIONS` of the children, e.g. `--enable-source-maps` as deployed
 */
export async function measureLoadTimes(
  bundles: readonly { name: string; file: string }[],
  env: Record<string, string>,
  rounds: number,
  nodeOptions: string,
): Promise<LoadTime[]> {
  const samples = new Map<string, Sample[]>(bundles.map(({ name }) => [name, []]));
  for (const { name, file } of bundles)
    await sampleLoad(file, env, nodeOptions).catch((e) => Promise.reject(new Error(`${name}: ${e}`)));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < bundles.length; i++) {
      const { name, file } = bundles[(round + i) % bundles.length] as { name: string; file: string };
      samples.get(name)?.push(await sampleLoad(file, env, nodeOptions));
    }
  }
  return bundles.map(({ name }) => {
    const list = samples.get(name) ?? [];
    return {
      name,
      import: summarize(list.map((s) => s.importMs)),
      importCpu: summarize(list.map((s) => s.importCpuMs)),
      process: summarize(list.map((s) => s.processMs)),
    };
  });
}
