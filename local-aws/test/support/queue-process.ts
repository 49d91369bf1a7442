/**
 * A process serving a template of two queues (`work`, visibility 30 s, redriven to `work-dlq` after 2 receives,
 * as queue-durability.test.ts's) with the embedded store on the data folder `STORE_DIR`, for kill tests: prints
 * `ready <EventBridge and SQS endpoint>` once it answers, then serves until killed.
 */
import { tmpdir } from 'node:os';
import { startLocalAws } from '../../serve.ts';

const served = await startLocalAws({
  template: {
    Resources: {
      Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'queues' } },
      Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'v1' } },
      Work: {
        Type: 'AWS::SQS::Queue',
        Properties: {
          QueueName: 'work',
          VisibilityTimeout: 30,
          RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['WorkDlq', 'Arn'] }, maxReceiveCount: 2 },
        },
      },
      WorkDlq: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'work-dlq' } },
    },
  },
  assemblyDir: tmpdir(),
  tableName: (logicalId) => {
    throw new Error(`no table ${logicalId}`);
  },
  dataDir: process.env.STORE_DIR as string,
  port: 0,
  host: '127.0.0.1',
});
served.open();
process.stdout.write(`ready ${served.eventsAndQueuesEndpoint}\n`);
