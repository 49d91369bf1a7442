/**
 * One pool of execution environments per function (README.md "Functions"; lambda/lambda-functions.ts): a
 * function that is both an API integration and a queue mapping's target runs in the same execution
 * environments whichever path invokes it, so an environment warmed by the API serves the queue's next batch,
 * as one Lambda function's warm environment serves any invocation, and the pool's bound holds across both paths.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { inMemory } from '../dynamodb/dynamodb.ts';
import { LambdaFunctions } from '../lambda/lambda-functions.ts';
import { TooLateToStart } from '../lambda/lambda-runtime.ts';
import { type ServedTemplate, startLocalAws } from '../serve.ts';
import type { Template } from '../template/api-model.ts';
import { temporaryDir } from '../testing/temporary-dirs.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

const served: ServedTemplate[] = [];
cleanUpAfterAll(() => Promise.all(served.map((one) => one.close())));

/**
 * Each invocation counts itself in its module instance (one per execution environment) and reports its
 * worker thread: in the API's answer, or, for a queue's batch, as a line of `RECORD_FILE`. An API request
 * with `?hold=1` first writes `{"held": threadId}` there and waits until `RELEASE_FILE` exists.
 */
const countingHandler = `import { appendFileSync, existsSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
let invocations = 0;
const record = (value) => appendFileSync(process.env.RECORD_FILE, JSON.stringify(value) + '\\n');
export const handler = async (event) => {
  invocations += 1;
  const seen = { threadId, invocations };
  if (event.Records) {
    record(seen);
    return {};
  }
  if (event.queryStringParameters?.hold) {
    record({ held: threadId });
    while (!existsSync(process.env.RELEASE_FILE)) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { statusCode: 200, body: JSON.stringify(seen) };
};
`;

/** The lines of `file` so far, parsed. */
async function lines(file: string): Promise<Record<string, number>[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * `GET /count` and the queue `jobs`'s mapping (at most 2 batches at once: a pool of Lambda's 4 environments)
 * both run `Counter`.
 */
function template(dir: string): Template {
  return {
    Resources: {
      Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'counter' } },
      Count: {
        Type: 'AWS::ApiGateway::Resource',
        Properties: { ParentId: { 'Fn::GetAtt': ['Api', 'RootResourceId'] }, PathPart: 'count' },
      },
      CountGet: {
        Type: 'AWS::ApiGateway::Method',
        Properties: {
          HttpMethod: 'GET',
          ResourceId: { Ref: 'Count' },
          AuthorizationType: 'NONE',
          Integration: { Type: 'AWS_PROXY', Uri: { 'Fn::GetAtt': ['Counter', 'Arn'] } },
        },
      },
      Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'v1' } },
      Counter: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Handler: 'index.handler',
          Timeout: 30,
          Environment: {
            Variables: { RECORD_FILE: join(dir, 'recorded.jsonl'), RELEASE_FILE: join(dir, 'release') },
          },
        },
      },
      Jobs: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
      JobsMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Jobs', 'Arn'] },
          FunctionName: { Ref: 'Counter' },
          ScalingConfig: { MaximumConcurrency: 2 },
        },
      },
    },
  };
}

/** Serves the template in a fresh folder, open; returns it and its record file. */
async function serveCounter(): Promise<{ one: ServedTemplate; dir: string; recordFile: string }> {
  const dir = await temporaryDir('one-pool-');
  const module = join(dir, 'index.mjs');
  await writeFile(module, countingHandler);
  const one = await startLocalAws({
    template: template(dir),
    assemblyDir: dir,
    functionSource: () => module,
    tableName: () => 'unused',
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
  });
  served.push(one);
  one.open();
  return { one, dir, recordFile: join(dir, 'recorded.jsonl') };
}

test('an execution environment warmed by the API serves the queue mapping of the same function', async () => {
  const { one, recordFile } = await serveCounter();
  // The API's invocation has ended (and released its environment) once its answer is here.
  const response = await fetch(`${one.baseUrl}/count`);
  expect(response.status).toBe(200);
  const warmed = (await response.json()) as { threadId: number; invocations: number };
  expect(warmed.invocations).toBe(1);

  await one.sendToQueue('Jobs', 'one job');
  await expect.poll(() => lines(recordFile), { timeout: 15_000, interval: 50 }).toHaveLength(1);
  expect(await lines(recordFile)).toEqual([{ threadId: warmed.threadId, invocations: 2 }]);
}, 60_000);

test('the pool bound holds across both paths: with the API holding all 4 environments, the batch runs in one of them', async () => {
  const { one, dir, recordFile } = await serveCounter();
  const held = Array.from({ length: 4 }, () => fetch(`${one.baseUrl}/count?hold=1`));
  await expect.poll(() => lines(recordFile), { timeout: 15_000, interval: 50 }).toHaveLength(4);
  const apiThreads = new Set((await lines(recordFile)).map((line) => line.held));
  expect(apiThreads.size).toBe(4);

  await one.sendToQueue('Jobs', 'one job');
  await writeFile(join(dir, 'release'), '');
  for (const response of await Promise.all(held)) expect(response.status).toBe(200);
  await expect.poll(() => lines(recordFile), { timeout: 15_000, interval: 50 }).toHaveLength(5);
  const [batch] = (await lines(recordFile)).filter((line) => line.held === undefined);
  expect(apiThreads).toContain(batch?.threadId);
}, 60_000);

test('a function first used after a shutdown set its deadline gets the deadline too: it never starts past it', async () => {
  const dir = await temporaryDir('one-pool-deadline-');
  const module = join(dir, 'index.mjs');
  await writeFile(module, 'export const handler = async () => ({ ran: true });\n');
  const functions = new LambdaFunctions((logicalId) => ({
    logicalId,
    module,
    exportName: 'handler',
    environment: {},
    memoryMb: 128,
    timeoutSeconds: 10,
  }));
  try {
    expect(await functions.get('Early').invoke({})).toMatchObject({ type: 'result' });
    functions.endBy(Date.now() + 5_000);
    // Both would end past the deadline: the one built before and the one first used now.
    await expect(functions.get('Early').invoke({})).rejects.toBeInstanceOf(TooLateToStart);
    await expect(functions.get('Late').invoke({})).rejects.toBeInstanceOf(TooLateToStart);
  } finally {
    await functions.close();
  }
});
