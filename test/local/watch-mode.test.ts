/**
 * Watch mode (`npm run dev`, local-aws/lambda/function-modules.ts): a change under the watched folders makes the
 * next call load the functions' code afresh, while the store keeps its data. Nothing in the repository is
 * edited: the watch is shown on a temporary folder, rename-saves and a handler's syntax error on a copy of the
 * project, and the server's reload by touching a source file (its content unchanged).
 */

import { cp, readFile, rename, symlink, utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { watchFunctionModules } from 'local-aws';
import { temporaryDir } from 'local-aws/testing';
import { describe, expect, it, vi } from 'vitest';
import { childEnv, projectRoot, spawnNode } from '#test/support/child-process.ts';
import { type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';

cleanUpAfterAll();

/** Polls `condition` every 50 ms until it holds. @throws after `timeoutMs`. */
function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  return vi.waitFor(() => expect(condition(), 'condition met in time').toBe(true), {
    timeout: timeoutMs,
    interval: 50,
  });
}

/** Saves `file` as editors do: writes a temporary file beside it, then renames it over the file. */
async function renameSave(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp-save`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

describe('the watch of function modules', () => {
  it('reports every save of a module, plain or by rename (the third and later too), and no temporary file', async () => {
    const dir = await temporaryDir('watch-fixture-');
    const module = join(dir, 'handler.ts');
    await writeFile(module, 'export const handler = async () => 0;\n');
    const changed: string[] = [];
    const stop = await watchFunctionModules([dir], (file) => changed.push(file));
    try {
      for (const save of [1, 2, 3, 4]) {
        // Saves a person makes: chokidar reports one change for saves of a file less than 50 ms apart.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const text = `export const handler = async () => ${save};\n`;
        if (save === 4) await writeFile(module, text);
        else await renameSave(module, text);
        await until(() => changed.length === save);
      }
      // The marker: a later save of another module, reported after anything the saves above caused.
      const marker = join(dir, 'marker.ts');
      await writeFile(marker, 'export const handler = async () => 5;\n');
      await until(() => changed.includes(marker));
      expect(changed).toEqual([module, module, module, module, marker]);
    } finally {
      await stop();
    }
  });
});

describe('npm run dev in a copy of the project', () => {
  const apiKey = 'watch-mode-copy-test-key-0123456789abcdef';

  it('survives rename-saves, prints a handler syntax error to stderr, and answers the client a plain 500', async () => {
    const copy = await temporaryDir('watch-project-');
    await Promise.all(
      [
        'infra',
        'local',
        'local-aws',
        'ops',
        'lib',
        'functions',
        'package.json',
        'package-lock.json',
        'openapi.yaml',
      ].map((name) => cp(join(projectRoot, name), join(copy, name), { recursive: true })),
    );
    await symlink(join(projectRoot, 'node_modules'), join(copy, 'node_modules'));
    const { child, output, exited } = spawnNode(
      relative(projectRoot, join(copy, 'local/server.ts')),
      ['--watch'],
      childEnv({ DATA_DIR: ':memory:', API_KEY: apiKey, PORT: '0', HOST: '127.0.0.1' }),
      copy,
    );
    try {
      await until(() => /^Try: curl .*\n/m.test(output.stdout), 90_000);
      const baseUrl = /^Pet store inventory API at (\S+) /m.exec(output.stdout)?.[1] as string;
      const list = () =>
        fetch(`${baseUrl}/inventory`, { headers: { authorization: `Bearer ${apiKey}` } }).then(
          async (response) => ({ status: response.status, text: await response.text() }),
        );
      const before = await list();
      expect(before.status).toBe(200);

      const handler = join(copy, 'functions/list-inventory/handler.ts');
      const source = await readFile(handler, 'utf8');
      const changed = 'Changed: functions/list-inventory/handler.ts; the next call loads it.\n';
      // A rename-save may reach the watcher as one event or, on a loaded machine, as two (unlink, add): each
      // save is awaited as one more report than before it.
      const reports = () => output.stdout.split(changed).length - 1;
      const beforeBreak = reports();
      await renameSave(handler, `${source}\nexport const broken = (;\n`);
      await until(() => reports() > beforeBreak);
      const failed = await list();
      expect(failed).toEqual({
        status: 500,
        text: '{"code":"internal_error","message":"internal error","status":500}',
      });
      await until(() => output.stderr.includes('Runtime.ImportModuleError'));
      expect(output.stderr).toMatch(
        /Runtime\.ImportModuleError: \S*functions\/list-inventory\/handler\.ts:\d+\n/,
      );
      expect(output.stderr).toContain('export const broken = (;');
      expect(output.stderr).toMatch(/SyntaxError \[ERR_INVALID_TYPESCRIPT_SYNTAX\]: .+\n/);
      expect(output.stderr).not.toMatch(/^\s+at /m);

      const beforeFix = reports();
      await renameSave(handler, source);
      await until(() => reports() > beforeFix);
      expect(await list()).toEqual(before);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 180_000);
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
