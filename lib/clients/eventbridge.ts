/** The container's EventBridge client, retries and timeouts as the DynamoDB client's (lib/clients/dynamodb.ts). */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { dynamoDbClientConfig } from './dynamodb.ts';

/** The shared client; endpoint: `AWS_ENDPOINT_URL_EVENTBRIDGE` when set (the local bus), else the regional one. */
export const eventBridgeClient = new EventBridgeClient(dynamoDbClientConfig);
