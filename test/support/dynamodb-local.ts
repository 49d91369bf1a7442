/** Starts AWS's DynamoDB Local (Java) as a second real DynamoDB API for the tests (docs/testing.md "Test support"). */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { freePort } from './free-port.ts';

/** The folder holding `DynamoDBLocal.jar` and `DynamoDBLocal_lib/`, or undefined when the package is absent. */
export function dynamoDbLocalDir(): string | undefined {
  try {
    const packageJson = createRequire(import.meta.url).resolve('amplify-dynamodb-simulator/package.json');
    const dir = join(dirname(packageJson), 'emulator');
    return existsSync(join(dir, 'DynamoDBLocal.jar')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** True when a `java` command runs (`java -version` exits 0). */
export function hasJava(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Stops the Java process and waits for it to exit. */
  close(): Promise<void>;
}

/** True when `endpoint` answers a DynamoDB `ListTables` request. */
async function answers(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        Authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    });
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * Starts DynamoDB Local in memory on a free port and waits until it answers.
 * @throws when the jar is missing, Java cannot start it, or it does not answer within `timeoutMs`.
 */
export async function startDynamoDbLocal(timeoutMs = 60_000): Promise<DynamoDbLocal> {
  const dir = dynamoDbLocalDir();
  if (!dir) throw new Error('amplify-dynamodb-simulator (DynamoDBLocal.jar) is not installed');
  const port = await freePort();
  const child: ChildProcess = spawn(
    'java',
    [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-port',
      String(port),
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (!(await answers(endpoint))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`DynamoDB Local did not start on port ${port}: ${stderr.slice(0, 2000)}`);
    }
    await sleep(100);
  }
  return {
    endpoint,
    async close() {
      if (child.exitCode === null) child.kill();
      await exited;
    },
  };
}

/**
 * Every record of `table`'s stream on DynamoDB Local (one per committed write, with its `eventName` and images),
 * read from the start of each shard through the DynamoDB Streams API, in commit order.
 */
export async function streamRecords(streams: DynamoDBStreamsClient, table: string): Promise<StreamRecord[]> {
  const { Streams = [] } = await streams.send(new ListStreamsCommand({ TableName: table }));
  const records: StreamRecord[] = [];
  for (const { StreamArn } of Streams) {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
    for (const { ShardId } of StreamDescription?.Shards ?? []) {
      let iterator = (
        await streams.send(
          new GetShardIteratorCommand({ StreamArn, ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
        )
      ).ShardIterator;
      while (iterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        if (!page.Records?.length) break;
        records.push(...page.Records);
        iterator = page.NextShardIterator;
      }
    }
  }
  const sequence = (record: StreamRecord) => BigInt(record.dynamodb?.SequenceNumber ?? 0);
  return records.sort((a, b) => (sequence(a) < sequence(b) ? -1 : 1));
}
