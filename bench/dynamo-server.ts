/**
 * The embedded DynamoDB of the bench (dynalite in memory, via infra/local `startDynamoDb`) in a process of
 * its own, so that on this 2-core machine the database's work runs beside, not inside, the event loop being
 * measured. Run as a script it serves until its parent disconnects; {@link startDynamoServer} launches it.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTables, inMemory, startDynamoDb } from '#infra/local/dynamodb.ts';
import { benchTableNames } from './function-env.ts';

/** A running bench DynamoDB. */
export interface DynamoServer {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Stops the server process. */
  close(): Promise<void>;
}

/** Static credentials and region for clients of the embedded DynamoDB (it accepts any signature). */
export const localClientConfig = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
};

/**
 * Starts dynalite in a child process and creates the bench tables (lib/api.ts schema, `bench-*` names).
 * @returns its endpoint, once the tables are active.
 */
export async function startDynamoServer(): Promise<DynamoServer> {
  const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve(String(message)));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`dynalite process exited (${code})`)));
  });
  const client = new DynamoDBClient({ ...localClientConfig, endpoint });
  await ensureTables(client, benchTableNames);
  client.destroy();
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const db = await startDynamoDb({ dataDir: inMemory });
  process.send(db.endpoint);
  process.once('disconnect', () => {
    db.close().finally(() => process.exit(0));
  });
}
