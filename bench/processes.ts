/** The bench's servers in processes of their own: the embedded DynamoDB and `npm start`. */
import { type ChildProcess, spawn } from 'node:child_process';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inMemory, type StoreCredentials } from '@pet-store/local-aws';
import { ensureTables } from '#lib/admin/tables.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { localTableNames } from '#local/settings.ts';
import { serverNodeFlags } from '#test/support/heap-settings.ts';

/**
 * Runs `node <script> ...args` (script relative to the project root) with `env` over this process's, until
 * its output matches `ready`. @returns the child and the match. @throws with its output when it exits first
 */
export function startScript(script: string, args: string[], env: Record<string, string>, ready: RegExp) {
  const path = new URL(`../${script}`, import.meta.url).pathname;
  const flags = script === 'local/server.ts' ? serverNodeFlags : [];
  const child = spawn(process.execPath, [...flags, path, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<{ child: ChildProcess; match: RegExpExecArray }>((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${output}`)));
  });
}

/** Stops `child` (SIGTERM) and waits for its exit. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A document client of the DynamoDB at `endpoint`, signing with `credentials` (the store's own). */
export function documentClientAt(endpoint: string, credentials: StoreCredentials) {
  return toDocumentClient(new DynamoDBClient({ endpoint, region: 'us-east-1', credentials }));
}

/**
 * Starts the bench's DynamoDB and creates the tables (lib/api.ts schemas, local names).
 * @returns its endpoint, a client's variables, a document client factory, `close`. @throws when it fails to start
 */
export async function startBenchDynamoDb() {
  const args = ['--port', '0', '--data-dir', inMemory];
  // It prints its endpoint, then the credentials of its store in memory (the only ones it accepts).
  const ready =
    /DynamoDB for the SAM CLI at (\S+)[\s\S]*AWS_ACCESS_KEY_ID=(\S+) AWS_SECRET_ACCESS_KEY=(\S+)\n/;
  const { child, match } = await startScript('local/sam-dynamodb.ts', args, {}, ready);
  const [, endpoint, accessKeyId, secretAccessKey] = match as unknown as [string, string, string, string];
  const credentials = {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
  };
  const documentClient = () => documentClientAt(endpoint, { accessKeyId, secretAccessKey });
  const client = documentClient();
  await ensureTables(client, localTableNames());
  client.destroy();
  return { endpoint, credentials, documentClient, close: () => stop(child) };
}
