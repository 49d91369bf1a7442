/** Runs the project's scripts (`npm run keys`, ...) as child processes (docs/contract.md "Operator tooling"). */
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverNodeFlags } from '#test/support/heap-settings.ts';

/** The project root. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Script paths from the project root, as package.json's scripts name them. */
export const scripts = {
  server: 'local/server.ts',
  keys: 'ops/api-keys.ts',
  import: 'ops/import-inventory.ts',
  backfill: 'ops/backfill.ts',
  webhooks: 'ops/webhooks.ts',
  samDynamoDb: 'local/sam-dynamodb.ts',
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
  'AWS_ENDPOINT_URL_SQS',
  'WEBHOOK_DELIVERY_QUEUE_URL',
  'WEBHOOK_ENDPOINTS_TABLE_NAME',
  'WEBHOOK_FAILURES_TABLE_NAME',
  'WEBHOOK_URL_POLICY',
];

/**
 * Node's on-disk compile cache (`NODE_COMPILE_CACHE`, Node >= 22.1) for the children: a spawn of a tool or of
 * `npm start` skips compiling the modules an earlier one compiled. Node checks each entry against the source's
 * hash and its own version, so a changed file is compiled again; the cache changes no output or behaviour (https://nodejs.org/api/module.html#module-compile-cache).
 */
export const childCompileCache = join(tmpdir(), 'pet-store-test-compile-cache');

/**
 * The environment of a child: the test's own without {@link localVariables} (so an in-process service of the
 * test never leaks its endpoint or table names into it), with {@link childCompileCache}, plus `variables`.
 */
export function childEnv(variables: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of localVariables) delete env[name];
  return { NODE_COMPILE_CACHE: childCompileCache, ...env, ...variables };
}

/**
 * The environment of a tool run by an operator with AWS credentials against stand-ins: {@link childEnv} of
 * `variables` (the endpoints, region and credentials), with no AWS profile, session token, general endpoint or
 * default region of the machine running the tests, and the shared AWS config and credentials files pointed at
 * absent files in `workDir`, so nothing of the machine's own AWS setup takes part.
 */
export function operatorEnv(workDir: string, variables: Record<string, string>): NodeJS.ProcessEnv {
  const env = childEnv({
    ...variables,
    AWS_CONFIG_FILE: join(workDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(workDir, 'no-aws-credentials'),
  });
  for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL', 'AWS_DEFAULT_REGION']) {
    delete env[name];
  }
  return env;
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

/** The {@link ChildResult} of a child that exited with `code`, no signal, having written exactly `stdout` and `stderr`. */
export function exited(code: number, stdout: string, stderr = ''): ChildResult {
  return { code, signal: null, stdout, stderr };
}

/**
 * Spawns `node <script> ...args` (killed by {@link killChildren}), the server with the V8 flags `npm start`
 * gives it: the child, its output so far, and its end.
 */
export function spawnNode(script: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
  const flags = script === scripts.server ? serverNodeFlags : [];
  return spawnCommand(process.execPath, [...flags, join(projectRoot, script), ...args], env, cwd);
}

/** Spawns `command ...args` (killed by {@link killChildren}): the child, its output so far, and its end. */
function spawnCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(command, args, {
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
export function runNode(
  script: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number },
): Promise<ChildResult> {
  return runCommand(process.execPath, [join(projectRoot, script), ...args], options);
}

/**
 * Runs `command ...args` (a shell, `curl`, a given `node`) to completion (killed after `timeoutMs`, default
 * 20 s), with the options of {@link runNode}.
 */
export async function runCommand(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number },
): Promise<ChildResult> {
  const { child, exited } = spawnCommand(command, args, options.env, options.cwd ?? projectRoot);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
