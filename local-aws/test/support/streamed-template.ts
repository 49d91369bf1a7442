/**
 * A template of one streamed table (`Items`, served as the fixture table `items`) whose stream the stand-in
 * consumer (testing/functions/stream-function.ts) reads from `startingPosition`, logging to `logFile`; its API is
 * a stage only. With {@link serveStreamed}, served by `startLocalAws` as served-streams.test.ts and
 * stream-process.ts do.
 */
import { startLocalAws } from '../../serve.ts';
import type { Template } from '../../template/api-model.ts';
import { streamFunctionModule } from '../../testing/index.ts';
import { dynamoDbClient } from '../../testing/test-store.ts';
import { createTestTables, testTables } from './fixture-tables.ts';

/** The template: `Consumer` (Timeout 10 s) reads `Items` through `Mapping`, batches of up to 100. */
export function streamedTemplate(logFile: string, startingPosition: 'LATEST' | 'TRIM_HORIZON'): Template {
  return {
    Resources: {
      Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'streams' } },
      Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'v1' } },
      Items: {
        Type: 'AWS::DynamoDB::Table',
        Properties: { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } },
      },
      Consumer: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Handler: 'index.handler',
          Timeout: 10,
          Environment: { Variables: { STREAM_LOG: logFile } },
        },
      },
      Mapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Items', 'StreamArn'] },
          FunctionName: { Ref: 'Consumer' },
          StartingPosition: startingPosition,
        },
      },
    },
  };
}

/**
 * Serves {@link streamedTemplate} on `dataDir` (or `:memory:`), its store holding the fixture tables (created
 * when missing, before `open()`), its functions given `environment` too; not yet open.
 */
export async function serveStreamed(options: {
  dataDir: string;
  assemblyDir: string;
  logFile: string;
  startingPosition: 'LATEST' | 'TRIM_HORIZON';
  environment?: Record<string, string>;
}) {
  const served = await startLocalAws({
    template: streamedTemplate(options.logFile, options.startingPosition),
    assemblyDir: options.assemblyDir,
    functionSource: () => streamFunctionModule,
    tableName: () => testTables.items,
    dataDir: options.dataDir,
    port: 0,
    host: '127.0.0.1',
    environment: () => ({ AWS_REGION: 'us-east-1', ...options.environment }),
  });
  const { AWS_ENDPOINT_URL_DYNAMODB, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY } = served.variables;
  const client = dynamoDbClient(AWS_ENDPOINT_URL_DYNAMODB as string, {
    accessKeyId: AWS_ACCESS_KEY_ID as string,
    secretAccessKey: AWS_SECRET_ACCESS_KEY as string,
  });
  await createTestTables(client);
  return { served, client };
}
