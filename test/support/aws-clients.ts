/** SDK clients of the local EventBridge and SQS endpoint (`local-aws`), for the service's tests. */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { StoreCredentials } from 'local-aws';

/** The SDK clients of an endpoint, signing with `credentials`. */
export function awsClients(endpoint: string, credentials: StoreCredentials) {
  const config = { endpoint, region: 'us-east-1', credentials, maxAttempts: 1 };
  return { sqs: new SQSClient(config), events: new EventBridgeClient(config) };
}
