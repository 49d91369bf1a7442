/**
 * Watch mode (`npm run dev`, infra/local/function-modules.ts): a change under the watched folders makes the
 * next call load the functions' code afresh, with the modules it imports, while the store keeps its data.
 * Nothing in the repository is edited: the reload of changed code is shown on a fixture in a temporary
 * folder, and the server's reload by touching a source file (its content unchanged).
 */

import { utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childEnv, projectRoot, runNode } from '#test/support/child-process.ts';
import { type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { temporaryDir } from '#test/support/temporary-dirs.ts';

cleanUpAfterAll();

/** Polls `condition` every 50 ms until it holds. @throws after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('function modules in watch mode', () => {
  it('answer with the changed code of a module the handler imports, after the change', async () => {
    const dir = await temporaryDir('watch-fixture-');
    await writeFile(join(dir, 'answer.ts'), "export const answer: string = 'first';\n");
    await writeFile(
      join(dir, 'handler.ts'),
      "import { answer } from './answer.ts';\nexport const handler = async () => answer;\n",
    );
    // A script of its own: Node's module hooks (not vitest's module runner) load the generations.
    const script = join(dir, 'run.ts');
    const modules = pathToFileURL(join(projectRoot, 'infra/local/function-modules.ts')).href;
    await writeFile(
      script,
      `import { writeFile } from 'node:fs/promises';
import { loadHandler, watchFunctionModules } from '${modules}';
let changes = 0;
const stop = watchFunctionModules([${JSON.stringify(dir)}], () => { changes += 1; });
const handler = await loadHandler<() => Promise<string>>(${JSON.stringify(join(dir, 'handler.ts'))});
console.log(await handler());
console.log(await handler());
await writeFile(${JSON.stringify(join(dir, 'answer.ts'))}, "export const answer: string = 'second';\\n");
while (changes === 0) await new Promise((resolve) => setTimeout(resolve, 20));
console.log(await handler());
stop();
`,
    );
    const result = await runNode(relative(projectRoot, script), [], { env: childEnv({}) });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('first\nfirst\nsecond\n');
  });
});

describe('npm run dev', () => {
  let server: ServerProcess;
  const apiKey = 'watch-mode-test-key-0123456789abcdefghij';

  it('reloads the functions when a source file changes, and the store keeps what was written', async () => {
    server = await startServerProcess({ DATA_DIR: ':memory:', API_KEY: apiKey }, { args: ['--watch'] });
    const request = (method: string, path: string, body?: string) =>
      fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        ...(body ? { body } : {}),
      }).then(async (response) => ({ status: response.status, text: await response.text() }));

    const before = await request('PATCH', '/inventory/9223372036854775807', '{"quantity": 41}');
    expect(before.status).toBe(200);

    const touched = join(projectRoot, 'lib', 'inventory', 'quantity.ts');
    const now = new Date();
    await utimes(touched, now, now);
    await until(() =>
      server.stdout().includes('Changed: lib/inventory/quantity.ts; the next call loads it.'),
    );

    const after = await request('PATCH', '/inventory/9223372036854775807', '{"quantity": 42}');
    expect(after).toEqual({ status: 200, text: before.text.replace('"quantity":41', '"quantity":42') });
    const list = await request('GET', '/inventory');
    expect(list.status).toBe(200);
    expect(list.text).toContain('{"petId":9223372036854775807,"quantity":42,');
    const stopped = await server.stop('SIGINT');
    expect(stopped.code).toBe(0);
  });
});
