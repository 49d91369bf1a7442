/** A measurement in a process of its own, so that the environment it sets stays there (bench only). */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs the module `url` in a child process with `options` ({@link childMain}) and returns what it sends. */
export function inChild<T>(url: string, options: unknown): Promise<T> {
  const child = fork(fileURLToPath(url), [JSON.stringify(options)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`${fileURLToPath(url)} failed (exit ${code})`)));
  });
}

/** In the module `url` when {@link inChild} runs it: sends `run(options)` to the parent and exits. */
export async function childMain<O>(url: string, run: (options: O) => Promise<unknown>): Promise<void> {
  if (process.argv[1] !== fileURLToPath(url) || !process.send) return;
  const results = await run(JSON.parse(process.argv[2] ?? '{}') as O);
  process.send(results, () => process.exit(0));
}
