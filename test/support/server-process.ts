/** Starts `npm start` as a child process on this run's staging stack (docs/local-api.md "Settings"). */

import { type ChildResult, childEnv, projectRoot, scripts, spawnNode } from './child-process.ts';
import { assemblyDir } from './synthesized-assembly.ts';

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
  /**
   * Sends `signal` and waits for the exit (SIGKILL after `killAfterMs`, default 10 s); `ms` is the time from
   * signal to exit.
   */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<ChildResult & { ms: number }>;
}

/** The first line of server output naming the base URL: `Pet store inventory API at <url> (...)`. */
const baseUrlLine = /^Pet store inventory API at (\S+) /m;

/**
 * The arguments of `npm start` that serve this run's synthesized staging stack (or the assembly in `assembly`)
 * without synthesizing again.
 */
export function serverArgs(assembly = assemblyDir()): string[] {
  return ['--stack', 'staging', '--assembly', assembly];
}

/**
 * Starts `node local/server.ts` with {@link serverArgs} of `options.assembly` (then `options.args`, e.g.
 * `--watch` as `npm run dev` passes) on a free port of 127.0.0.1 (`PORT=0`, `HOST=127.0.0.1`), `variables` added to or replacing those
 * of the child's environment (see `childEnv`), and waits until it has printed its startup lines (the last one
 * is the `Try: curl ...` line, printed once it listens).
 * @throws with the child's output when it exits or prints nothing usable within `timeoutMs` (default 30 s).
 */
export async function startServerProcess(
  variables: Record<string, string> = {},
  options: { cwd?: string; args?: readonly string[]; timeoutMs?: number; assembly?: string } = {},
): Promise<ServerProcess> {
  const { child, output, exited } = spawnNode(
    scripts.server,
    [...serverArgs(options.assembly), ...(options.args ?? [])],
    childEnv({ PORT: '0', HOST: '127.0.0.1', ...variables }),
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
    async stop(signal = 'SIGTERM', killAfterMs = 10_000) {
      const start = performance.now();
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      child.kill(signal);
      const result = await exited;
      clearTimeout(timer);
      return { ...result, ms: performance.now() - start };
    },
  };
}

/** `GET <baseUrl>/inventory` with the key as a Bearer credential: the status and raw body text. */
export async function getInventory(
  baseUrl: string,
  apiKey: string,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}/inventory`, { headers: { Authorization: `Bearer ${apiKey}` } });
  return { status: response.status, text: await response.text() };
}

/**
 * One API request to `server` with `apiKey` as a Bearer credential and `body` as JSON: its status and body
 * text; status 0 when no answer came (the server is gone: the connection was refused or reset).
 */
export async function callApi(
  server: { baseUrl: string },
  apiKey: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(server.baseUrl + path, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, text: await response.text() };
  } catch {
    return { status: 0, text: '' };
  }
}
