/**
 * One pool of execution environments per function (README.md "Functions"; lambda/lambda-functions.ts): a
 * function that is both an API integration and a queue mapping's target runs in the same execution
 * environments whichever path invokes it, so an environment warmed by the API serves the queue's next batch,
 * as one Lambda function's warm environment serves any invocation.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { inMemory } from '../dynamodb/dynamodb.ts';
import { type ServedTemplate, startLocalAws } from '../serve.ts';
import type { Template } from '../template/api-model.ts';
import { temporaryDir } from '../testing/temporary-dirs.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

let served: ServedTemplate | undefined;
cleanUpAfterAll(() => served?.close());

/**
 * Each invocation counts itself in its module instance (one per execution environment) and reports its
 * worker thread: in the API's answer, or, for a queue's batch, as a line of `RECORD_FILE`.
 */
const countingHandler = `import { appendFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
let invocations = 0;
export const handler = async (event) => {
  invocations += 1;
  const seen = { threadId, invocations };
  if (!event.Records) return { statusCode: 200, body: JSON.stringify(seen) };
  appendFileSync(process.env.RECORD_FILE, JSON.stringify(seen) + '\\n');
  return {};
};
`;

/** `GET /count` and the queue `jobs`'s mapping both run `Counter`. */
function template(recordFile: string): Template {
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
        Properties: { Handler: 'index.handler', Environment: { Variables: { RECORD_FILE: recordFile } } },
      },
      Jobs: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
      JobsMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: { EventSourceArn: { 'Fn::GetAtt': ['Jobs', 'Arn'] }, FunctionName: { Ref: 'Counter' } },
      },
    },
  };
}

test('an execution environment warmed by the API serves the queue mapping of the same function', async () => {
  const dir = await temporaryDir('one-pool-');
  const module = join(dir, 'index.mjs');
  const recordFile = join(dir, 'recorded.jsonl');
  await writeFile(module, countingHandler);
  served = await startLocalAws({
    template: template(recordFile),
    assemblyDir: dir,
    functionSource: () => module,
    tableName: () => 'unused',
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
  });
  served.open();

  // The API's invocation has ended (and released its environment) once its answer is here.
  const response = await fetch(`${served.baseUrl}/count`);
  expect(response.status).toBe(200);
  const warmed = (await response.json()) as { threadId: number; invocations: number };
  expect(warmed.invocations).toBe(1);

  await served.sendToQueue('Jobs', 'one job');
  await expect
    .poll(async () => (existsSync(recordFile) ? (await readFile(recordFile, 'utf8')).trim() : ''), {
      timeout: 15_000,
      interval: 50,
    })
    .not.toBe('');
  const lines = (await readFile(recordFile, 'utf8')).trim().split('\n');
  expect(lines.map((line) => JSON.parse(line))).toEqual([{ threadId: warmed.threadId, invocations: 2 }]);
}, 60_000);
