/**
 * The typed client used from another project, as client/README.md says: installed from the repository path
 * (`npm install <repo>/client` links it into `node_modules`), imported by a plain `.mjs` file, run by Node 24
 * against the local API; on Node 20 it stops at import with an error naming the minimum Node, and the README's
 * line for that case (the repository's Node 24, `../pet-store/node_modules/.bin/node main.mjs`) runs it, as
 * written, where the machine's `node` is Node 20.
 */
import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { removeTemporaryDirs, temporaryDir } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, projectRoot, runCommand } from '#test/support/child-process.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

/** A Node.js older than the client supports: Debian's `nodejs` (Node 20), or `OLD_NODE_PATH`. */
const oldNode = process.env.OLD_NODE_PATH || '/usr/bin/node';

/** The program of client/README.md "Use it from another project". */
const program = `import { ApiError, createPetStoreClient } from '@pet-store/client';

const api = createPetStoreClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
const items = await api.GET('/inventory');
console.log(items.map((item) => \`\${item.petId} \${typeof item.petId}\`).join('\\n'));
try {
  await api.GET('/inventory/{petId}', { params: { path: { petId: 42n } } });
} catch (error) {
  if (error instanceof ApiError) console.log(error.status, error.code);
}
`;

/** client/README.md's line that runs the program on the repository's Node, its comment cut. */
const projectNodeLine = readFileSync(join(projectRoot, 'client', 'README.md'), 'utf8')
  .split('\n')
  .find((line) => line.includes('/node_modules/.bin/node main.mjs'))
  ?.replace(/\s+#.*$/, '') as string;

let api: TestApi;
let project: string;

beforeAll(async () => {
  api = await startTestApi({ seed: false });
  await api.putRawItems(
    ['9007199254740993', '9223372036854775807'].map((petId) => inventoryRecord(petId, 1, 'available')),
  );
  // The repository's folder as the README names it, and the other project beside it.
  const machine = await temporaryDir('client-user-');
  await symlink(projectRoot, join(machine, 'pet-store'));
  project = join(machine, 'my-app');
  await mkdir(join(project, 'node_modules', '@pet-store'), { recursive: true });
  await symlink(join(projectRoot, 'client'), join(project, 'node_modules', '@pet-store', 'client'));
  await writeFile(join(project, 'package.json'), '{ "name": "client-user", "private": true }\n');
  await writeFile(join(project, 'main.mjs'), program);
});
afterAll(async () => {
  await api?.close();
  await removeTemporaryDirs();
});

describe('@pet-store/client in another project', () => {
  it('runs the README program on this Node: exact bigint petIds, an ApiError for a missing pet', async () => {
    const result = await runCommand(process.execPath, ['main.mjs'], {
      cwd: project,
      env: childEnv({ BASE_URL: api.baseUrl, API_KEY: api.apiKey }),
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('9007199254740993 bigint\n9223372036854775807 bigint\n404 not_found\n');
  });

  it('stops at import on Node 20 with an error naming the minimum Node', async () => {
    const version = await runCommand(oldNode, ['--version'], { env: childEnv({}) });
    expect(version.stdout).toMatch(/^v20\./);
    const result = await runCommand(oldNode, ['main.mjs'], {
      cwd: project,
      env: childEnv({ BASE_URL: api.baseUrl, API_KEY: api.apiKey }),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'Error: @pet-store/client needs Node.js 22.18 or later (JSON.parse source text access keeps int64 exact; ' +
        `its TypeScript sources run by type stripping); this is Node.js ${version.stdout.trim()}\n`,
    );
  });

  it("runs on the repository's Node 24 with client/README.md's line as written where node is Node 20", async () => {
    expect(projectNodeLine).toBe(
      'BASE_URL=http://127.0.0.1:3000/v1 API_KEY=psk_... ../pet-store/node_modules/.bin/node main.mjs',
    );
    const line = projectNodeLine
      .replace('http://127.0.0.1:3000/v1', api.baseUrl)
      .replace('psk_...', api.apiKey);
    // The machine's PATH: its own node first, no project node_modules/.bin.
    const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules'));
    const env = childEnv({ PATH: [dirname(oldNode), ...path].join(delimiter) });
    expect((await runCommand('bash', ['-c', 'node --version'], { env })).stdout).toMatch(/^v20\./);
    const result = await runCommand('bash', ['-c', line], { cwd: project, env });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('9007199254740993 bigint\n9223372036854775807 bigint\n404 not_found\n');
  });
});
