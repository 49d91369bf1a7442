/**
 * Running the project's commands as real child processes, as an operator runs them: the local server
 * (`npm start` = `node infra/local/server.ts`) and the operator tools (`npm run keys`, `npm run import`).
 *
 * Children get the test process's environment without the local-service variables (a test states the ones it
 * means), so an in-process service of the test never leaks its endpoint or table names into them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assemblyDir } from './synthesized-assembly.ts';

/** The project root. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Script paths from the project root, as package.json's scripts name them. */
export const scripts = {
  server: 'infra/local/server.ts',
  keys: 'infra/tools/api-keys.ts',
  import: 'infra/tools/import-inventory.ts',
  backfill: 'infra/tools/backfill.ts',
  samDynamoDb: 'infra/local/sam-dynamodb.ts',
} as const;

/** Variables of the local service and tools that a child never inherits from the test process. */
const localVariables = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'INVENTORY_TABLE_NAME',
  'API_KEYS_TABLE_NAME',
  'DATA_DIR',
  'PORT',
  'HOST',
  'API_KEY',
  'API_KEY_RATE',
];

/** The environment of a child: the test's own without {@link localVariables}, plus `variables`. */
export function childEnv(variables: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of localVariables) delete env[name];
  return { ...env, ...variables };
}

/** Every child started here and still running, killed by {@link killChildren}. */
const running = new Set<ChildProcess>();

/** Kills every child this module started that is still running (for `afterAll`, after a failed test). */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
process.once('exit', killChildren);

/** How a finished child ended. */
export interface ChildResult {
  /** Exit code, or null when it was killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Spawns `node <script> ...args` (killed by {@link killChildren}): the child, its output so far, and its end.
 */
export function startNode(script: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [join(projectRoot, script), ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const exited = new Promise<ChildResult>((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal, ...output });
    });
  });
  return { child, output, exited };
}

/**
 * Runs `node <script> ...args` to completion (killed after `timeoutMs`, default 20 s).
 * @param options.env the child's environment (see {@link childEnv}).
 * @param options.cwd working directory (default the project root).
 */
export async function runNode(
  script: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number },
): Promise<ChildResult> {
  const { child, exited } = startNode(script, args, options.env, options.cwd ?? projectRoot);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A local server running as a child process. */
export interface ServerProcess {
  /** The base URL it printed (`http://host:port/v1`). */
  baseUrl: string;
  /** Its process id. */
  pid: number;
  /** Everything it wrote to stdout so far. */
  stdout(): string;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Sends `signal` and waits for the exit (SIGKILL after 10 s); `ms` is the time from signal to exit. */
  stop(signal?: NodeJS.Signals): Promise<ChildResult & { ms: number }>;
}

/** The first line of server output naming the base URL: `Pet store inventory API at <url> (...)`. */
const baseUrlLine = /^Pet store inventory API at (\S+) /m;

/** The arguments of `npm start` that serve this run's synthesized staging stack without synthesizing again. */
export function serverArgs(): string[] {
  return ['--stack', 'staging', '--assembly', assemblyDir()];
}

/**
 * Starts `node infra/local/server.ts` with {@link serverArgs} and waits until it has printed its startup lines (the last one is the
 * `Try: curl ...` line, printed once it listens).
 * @throws with the child's output when it exits or prints nothing usable within `timeoutMs` (default 30 s).
 */
export async function startServer(options: {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Arguments after the script (for example `--watch`, as `npm run dev` passes). */
  args?: readonly string[];
}): Promise<ServerProcess> {
  const { child, output, exited } = startNode(
    scripts.server,
    [...serverArgs(), ...(options.args ?? [])],
    options.env,
    options.cwd ?? projectRoot,
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server not ready in time:\n${output.stdout}\n${output.stderr}`));
    }, options.timeoutMs ?? 30_000);
    const check = () => {
      if (/^Try: curl .*\n/m.test(output.stdout)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    void exited.then((result) => {
      clearTimeout(timer);
      reject(
        new Error(`server exited (${result.code ?? result.signal}):\n${result.stdout}\n${result.stderr}`),
      );
    });
  });
  await ready;
  const baseUrl = baseUrlLine.exec(output.stdout)?.[1];
  if (!baseUrl) throw new Error(`no base URL in the server output:\n${output.stdout}`);
  return {
    baseUrl,
    pid: child.pid as number,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    async stop(signal = 'SIGTERM') {
      const start = performance.now();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill(signal);
      const result = await exited;
      clearTimeout(timer);
      return { ...result, ms: performance.now() - start };
    },
  };
}

/**
 * {@link startServer} listening on a free port of 127.0.0.1 (`PORT=0`, `HOST=127.0.0.1`), with `variables`
 * added to (or replacing) those in the child's environment (see {@link childEnv}); `cwd` as for startServer.
 */
export function startLocalServer(variables: Record<string, string>, cwd?: string): Promise<ServerProcess> {
  return startServer({
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', ...variables }),
    ...(cwd ? { cwd } : {}),
  });
}

/** `GET <baseUrl>/inventory` with the key as a Bearer credential: the status and raw body text. */
export async function getInventory(
  baseUrl: string,
  apiKey: string,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}/inventory`, { headers: { Authorization: `Bearer ${apiKey}` } });
  return { status: response.status, text: await response.text() };
}
