/**
 * `npm run sam:dynamodb` (local/sam-dynamodb.ts; docs/local-api.md) listens on the port it is given and writes
 * the SAM CLI's env-vars file for that port. (The data folder's privacy and the store's refusal of web pages
 * are the local AWS's: local-aws/test/private-store.test.ts.)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { dataFolderCredentials } from 'local-aws';
import { dynamoDbClient, temporaryDir } from 'local-aws/testing';
import { describe, expect, test } from 'vitest';
import { samTableNames } from '#local/sam-fixtures.ts';
import { childEnv, projectRoot, scripts, spawnNode } from '#test/support/child-process.ts';
import { freePort } from '#test/support/free-port.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';

const cleanups: (() => Promise<void>)[] = [];
cleanUpAfterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('npm run sam:dynamodb', () => {
  test('--port listens on that port and --env-vars writes the SAM env-vars file for it', async () => {
    const port = await freePort();
    const dir = await temporaryDir('sam-dynamodb-');
    const envVarsFile = join(dir, 'env-vars.json');
    const { child, output, exited } = spawnNode(
      scripts.samDynamoDb,
      ['--port', String(port), '--data-dir', join(dir, 'data'), '--env-vars', envVarsFile],
      childEnv({}),
      projectRoot,
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', () => {
        if (output.stdout.includes('Wrote ')) resolve();
      });
      void exited.then(() => reject(new Error(`exited: ${output.stdout}`)));
    });

    expect(output.stdout).toContain(`DynamoDB for the SAM CLI at http://127.0.0.1:${port} `);
    const client = dynamoDbClient(`http://127.0.0.1:${port}`, await dataFolderCredentials(join(dir, 'data')));
    cleanups.push(async () => client.destroy());
    const { TableNames } = await client.send(new ListTablesCommand({}));
    expect(TableNames?.sort()).toStrictEqual(Object.values(samTableNames()).sort());
    const committed = JSON.parse(await readFile(join(projectRoot, 'sam/env-vars.json'), 'utf8'));
    const written = JSON.parse(await readFile(envVarsFile, 'utf8'));
    for (const variables of Object.values(committed) as Record<string, string>[]) {
      variables.AWS_ENDPOINT_URL_DYNAMODB = `http://host.docker.internal:${port}`;
    }
    expect(written).toStrictEqual(committed);
    child.kill('SIGTERM');
    await exited;
  });
});
