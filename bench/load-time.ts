/** Module load time of each bundle in fresh Node processes, as deployed: docs/performance.md "How each figure is taken". */
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { quantile } from './stats.ts';

/** The child: streaming globals, then the import timed in wall clock and CPU (user + system) ms, as JSON. */
const childProgram = `(await import(process.argv[2])).installStreamingRuntime();
const cpu = process.cpuUsage(); const start = performance.now();
await import(process.argv[1]);
const { user, system } = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify([performance.now() - start, (user + system) / 1000]));`;
/** The local AWS's entry, whose `installStreamingRuntime` sets the streaming globals as Lambda's runtime does. */
const streamingRuntime = import.meta.resolve('@pet-store/local-aws');

/** A bundle to load, with the environment its function gets. */
export interface Loadable {
  name: string;
  file: string;
  environment: Record<string, string>;
}

/** One load in a fresh process: [wall ms, CPU ms]. @throws with the child's output when it fails */
function sample({ file, environment }: Loadable): Promise<[number, number]> {
  const args = ['--input-type=module', '-e', childProgram, pathToFileURL(file).href, streamingRuntime];
  const env = { PATH: process.env.PATH ?? '', ...environment, NODE_OPTIONS: '--enable-source-maps' };
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { env }, (error, stdout, stderr) =>
      error ? reject(new Error(`loading ${file}: ${stderr || error.message}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

/** Median import milliseconds (CPU and wall clock) of each bundle over `rounds` fresh processes. */
export async function measureLoadTimes(bundles: readonly Loadable[], rounds: number) {
  const samples = bundles.map(() => [] as [number, number][]);
  for (const bundle of bundles) await sample(bundle);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < bundles.length; i++) {
      const index = (round + i) % bundles.length;
      samples[index]?.push(await sample(bundles[index] as Loadable));
    }
  }
  return bundles.map(({ name }, i) => ({
    name,
    wallMs: quantile(
      (samples[i] ?? []).map(([wall]) => wall),
      0.5,
    ),
    cpuMs: quantile(
      (samples[i] ?? []).map(([, cpu]) => cpu),
      0.5,
    ),
  }));
}
