/**
 * The function bundles and their environment:
 * - every bundle of the synthesized cloud assembly loads under the Lambda runtime's Node major (24), initialises
 *   with its declared environment and an unreachable DynamoDB endpoint, and exports `handler`;
 * - the bundles are ESM with the `createRequire` banner, carry the AWS SDK inside (tree-shaken) and a source map;
 * - every environment variable the code of a function reads (`process.env.X`, `requiredEnv(...)` in lib/ and
 *   functions/, found through the bundle's esbuild metafile) is declared on that function, because the SAM CLI
 *   only overrides declared variables and Lambda sets no other;
 * - `sam/env-vars.json` names exactly the functions' logical ids and only variables declared on them;
 * - an empty `AWS_ENDPOINT_URL_DYNAMODB`, as declared on deployed functions, leaves the SDK on the regional
 *   endpoint.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EventBridgeClient, ListEventBusesCommand } from '@aws-sdk/client-eventbridge';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFileName, bundleFunction, esmRequireBanner, projectRoot } from '#infra/bundling.ts';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { type EnvironmentName, environments } from '#infra/settings.ts';
import { authorizer, eventFunctions, type FunctionDefinition, operations, tablesOf } from '#lib/api.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { deprecationEnv } from '#lib/pets/deprecation.ts';
import { tables } from '#lib/tables.ts';
import { webhookEnv } from '#lib/webhooks/webhook-env.ts';
import { samTableNames } from '#local/sam-fixtures.ts';
import { localTableNames } from '#local/settings.ts';
import { resource, synthesized } from '#test/infra/synth.ts';
import { section, tableRows } from '#test/support/markdown.ts';

const definitions: FunctionDefinition[] = [...operations, authorizer, ...Object.values(eventFunctions)];
const scratch = mkdtempSync(join(tmpdir(), 'inventory-bundles-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The Node major of the Lambda runtime the stack uses (`nodejs24.x` -> 24). */
const runtimeMajor = Number(/nodejs(\d+)\.x/.exec(Runtime.NODEJS_24_X.name)?.[1]);

/** The declared variables of a function in a template, with each `Ref` replaced by `<logicalId>`. */
function declaredVariables(environment: EnvironmentName, logicalId: string): Record<string, string> {
  const { json } = synthesized().environments[environment];
  const variables = (
    resource(json, logicalId).Properties.Environment as { Variables: Record<string, unknown> }
  ).Variables;
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : `<${(value as { Ref: string }).Ref}>`,
    ]),
  );
}

/** The bundle file of a function in the cloud assembly, from its `aws:asset:path` metadata. */
function assetBundle(environment: EnvironmentName, logicalId: string): string {
  const { json } = synthesized().environments[environment];
  const assetPath = resource(json, logicalId).Metadata?.['aws:asset:path'] as string;
  return join(synthesized().outdir, assetPath, bundleFileName);
}

/** The variable `object.member` names (`eventsEnv.busName`: `EVENT_BUS_NAME`), or undefined. */
function envVariable(object: string, member: string): string | undefined {
  const objects: Record<string, Record<string, string>> = { eventsEnv, webhookEnv };
  return objects[object]?.[member];
}

/**
 * Environment variable names read by a source file: literal `process.env.X`, `requiredEnv('X')`,
 * `requiredEnv(tables.t.env)`, `requiredEnv(deprecationEnv.d)`, `requiredEnv(eventsEnv.e)`, `process.env[eventsEnv.e]`
 * (and likewise `webhookEnv.w`).
 */
function variablesRead(source: string, file: string): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(
    /process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*'([A-Z0-9_]+)'\s*\])/g,
  )) {
    names.push((match[1] ?? match[2]) as string);
  }
  for (const match of source.matchAll(/process\.env\[(eventsEnv|webhookEnv)\.(\w+)\]/g)) {
    const name = envVariable(match[1] as string, match[2] as string);
    if (name === undefined) throw new Error(`${file}: no ${match[1]}.${match[2]}`);
    names.push(name);
  }
  for (const match of source.matchAll(/requiredEnv\(([^)]*)\)/g)) {
    const argument = (match[1] as string).trim();
    const literal = /^'([A-Z0-9_]+)'$/.exec(argument);
    const tableVariable = /^tables\.(\w+)\.env$/.exec(argument);
    const deprecationVariable = /^deprecationEnv\.(\w+)$/.exec(argument)?.[1];
    const [, object, member] = /^(eventsEnv|webhookEnv)\.(\w+)$/.exec(argument) ?? [];
    const variable = object && member ? envVariable(object, member) : undefined;
    if (literal) names.push(literal[1] as string);
    else if (variable !== undefined) {
      names.push(variable);
    } else if (deprecationVariable && deprecationVariable in deprecationEnv) {
      names.push(deprecationEnv[deprecationVariable as keyof typeof deprecationEnv]);
    } else if (tableVariable?.[1] && tableVariable[1] in tables) {
      names.push(tables[tableVariable[1] as keyof typeof tables].env);
    } else if (!/^name: string$/.test(argument)) {
      throw new Error(`${file}: cannot tell which variable requiredEnv(${argument}) reads`);
    }
  }
  const dynamic =
    /process\.env\[(?!\s*'[A-Z0-9_]+'\s*\]|(?:eventsEnv|webhookEnv)\.\w+\])/.test(source) &&
    !file.endsWith('lib/env.ts');
  if (dynamic) throw new Error(`${file}: reads process.env with a computed name`);
  return names;
}

describe.each(Object.keys(environments) as EnvironmentName[])('%s bundles', (environment) => {
  it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
    `%s loads under Node ${runtimeMajor} with its declared environment and exports handler`,
    (logicalId) => {
      const bundle = assetBundle(environment, logicalId);
      // The Lambda runtime defines its `awslambda` globals (response streaming) before it loads a handler.
      const probe =
        '(await import(process.argv[2])).installStreamingRuntime(); const m = await import(process.argv[1]); console.log(JSON.stringify({ node: process.versions.node, handler: typeof m.handler }));';
      const runtime = pathToFileURL(join(projectRoot, 'local-aws/lambda/response-streaming.ts')).href;
      const result = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', probe, pathToFileURL(bundle).href, runtime],
        {
          encoding: 'utf8',
          timeout: 20_000,
          env: {
            PATH: process.env.PATH,
            ...declaredVariables(environment, logicalId),
            AWS_REGION: 'us-east-1',
            AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9',
          },
        },
      );
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const loaded = JSON.parse(result.stdout.trim().split('\n').at(-1) as string);
      expect(Number(loaded.node.split('.')[0])).toBe(runtimeMajor);
      expect(loaded.handler).toBe('function');
    },
  );

  it.each(definitions.map((d) => [functionLogicalId(d)] as const))(
    '%s is an ESM bundle with the createRequire banner, the AWS SDK inside and tree-shaken, and a source map',
    (logicalId) => {
      const bundle = assetBundle(environment, logicalId);
      const code = readFileSync(bundle, 'utf8');
      expect(code.startsWith(esmRequireBanner)).toBe(true);
      expect(code).not.toMatch(/(from|import\()\s*["']@aws-sdk\//);
      expect(code).not.toContain('CreateTable');
      expect(existsSync(`${bundle}.map`)).toBe(true);
      expect(declaredVariables(environment, logicalId).NODE_OPTIONS).toBe('--enable-source-maps');
    },
  );
});

describe('environment variables', () => {
  const metafiles = new Map<FunctionDefinition, Promise<Awaited<ReturnType<typeof bundleFunction>>>>();
  const metafileOf = (definition: FunctionDefinition) => {
    if (!metafiles.has(definition)) {
      metafiles.set(definition, bundleFunction(definition.entry, join(scratch, definition.name)));
    }
    return metafiles.get(definition) as ReturnType<typeof bundleFunction>;
  };

  it.each(definitions.map((d) => [functionLogicalId(d), d] as const))(
    '%s declares every variable its code in lib/ and functions/ reads',
    async (logicalId, definition) => {
      const metafile = await metafileOf(definition);
      const ownSources = Object.keys(metafile.inputs).filter((path) => /^(lib|functions)\//.test(path));
      expect(ownSources).toContain(definition.entry);
      const read = new Set(
        ownSources.flatMap((path) => variablesRead(readFileSync(join(projectRoot, path), 'utf8'), path)),
      );
      // The table variable must be among them, or the scan is not finding requiredEnv(...) reads.
      for (const t of tablesOf(definition)) expect(read).toContain(tables[t].env);
      for (const environment of Object.keys(environments) as EnvironmentName[]) {
        const declared = Object.keys(declaredVariables(environment, logicalId));
        for (const name of [...read, 'AWS_ENDPOINT_URL_DYNAMODB']) {
          expect(declared, `${environment} ${logicalId} declares ${name}`).toContain(name);
        }
      }
    },
  );

  it("sam/env-vars.json names exactly the functions, only variables declared on each (SAM ignores others), the same SAM tables apart from npm start's", () => {
    const envVars = JSON.parse(readFileSync(join(projectRoot, 'sam/env-vars.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    expect(Object.keys(envVars).sort()).toEqual(definitions.map(functionLogicalId).sort());
    for (const definition of definitions) {
      const logicalId = functionLogicalId(definition);
      const overrides = envVars[logicalId] as Record<string, string>;
      const declared = Object.keys(declaredVariables('staging', logicalId));
      for (const name of Object.keys(overrides))
        expect(declared, `${logicalId} declares ${name}`).toContain(name);
      for (const t of tablesOf(definition)) {
        expect(overrides[tables[t].env]).toBe(samTableNames()[t]);
        expect(overrides[tables[t].env]).not.toBe(localTableNames()[t]);
      }
      expect(overrides.AWS_ENDPOINT_URL_DYNAMODB).toBe('http://host.docker.internal:8000');
    }
  });

  it('docs/local-api.md "Function logical ids" lists every function of both templates, and only those', () => {
    const page = readFileSync(join(projectRoot, 'docs/local-api.md'), 'utf8');
    const named = tableRows(section(page, 'Function logical ids')).map(([id = '']) => id.replaceAll('`', ''));
    expect([...named].sort()).toEqual(definitions.map(functionLogicalId).sort());
    for (const environment of Object.keys(environments) as EnvironmentName[]) {
      for (const logicalId of named) {
        expect(resource(synthesized().environments[environment].json, logicalId).Type).toBe(
          'AWS::Lambda::Function',
        );
      }
    }
  });

  it.each([
    [
      'AWS_ENDPOINT_URL_SQS',
      () => new SQSClient({}),
      () => new GetQueueUrlCommand({ QueueName: 'any' }),
      'sqs.eu-west-1.amazonaws.com',
    ],
    [
      'AWS_ENDPOINT_URL_EVENTBRIDGE',
      () => new EventBridgeClient({}),
      () => new ListEventBusesCommand({}),
      'events.eu-west-1.amazonaws.com',
    ],
  ] as const)(
    'an empty %s (as deployed) leaves the SDK on the regional endpoint',
    async (variable, client, command, host) => {
      process.env[variable] = '';
      process.env.AWS_REGION = 'eu-west-1';
      process.env.AWS_ACCESS_KEY_ID = 'test';
      process.env.AWS_SECRET_ACCESS_KEY = 'test';
      // Either client with its own command: the part of their shape used here.
      const sdkClient = client() as unknown as {
        middlewareStack: { add(middleware: unknown, options: { step: 'build' }): void };
        send(command: unknown): Promise<unknown>;
      };
      let hostname: string | undefined;
      sdkClient.middlewareStack.add(
        () => async (args: { request: { hostname: string } }) => {
          hostname = args.request.hostname;
          throw new Error('stop before sending');
        },
        { step: 'build' },
      );
      await expect(sdkClient.send(command())).rejects.toThrow('stop before sending');
      expect(hostname).toBe(host);
    },
  );

  it('an empty AWS_ENDPOINT_URL_DYNAMODB (as deployed) leaves the SDK on the regional endpoint', async () => {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = '';
    process.env.AWS_REGION = 'eu-west-1';
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    const { createDocumentClient } = await import('#lib/clients/dynamodb.ts');
    const client = createDocumentClient();
    let hostname: string | undefined;
    client.middlewareStack.add(
      (_next, _context) => async (args) => {
        hostname = (args.request as { hostname: string }).hostname;
        throw new Error('stop before sending');
      },
      { step: 'build' },
    );
    await expect(client.send(new ScanCommand({ TableName: 'any' }))).rejects.toThrow('stop before sending');
    expect(hostname).toBe('dynamodb.eu-west-1.amazonaws.com');
  });
});
