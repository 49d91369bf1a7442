/**
 * The typed client used from another project, as client/README.md says: installed from the repository path
 * (`npm install <repo>/client` links it into `node_modules`), imported by a plain `.mjs` file, run by Node 24
 * against the local API; on Node 20 it stops at import with an error naming the minimum Node.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTemporaryDirs, temporaryDir } from '@pet-store/local-aws/testing';
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

let api: TestApi;
let project: string;

beforeAll(async () => {
  api = await startTestApi({ seed: false });
  await api.putRawItems(
    ['9007199254740993', '9223372036854775807'].map((petId) => inventoryRecord(petId, 1, 'available')),
  );
  project = await temporaryDir('client-user-');
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
});
