/**
 * The baseline of the load-time and size measurements: the least a Lambda function can do with DynamoDB
 * through the document client. It builds one `DynamoDBDocumentClient` at init and sends one `UpdateCommand`
 * per invocation, nothing else (no middy, no Powertools, no validation). Bundled with the very same esbuild
 * settings as the service's functions (infra/bundling.ts), it is the floor the functions are compared with.
 * Environment: `INVENTORY_TABLE_NAME`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandOutput } from '@aws-sdk/lib-dynamodb';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const tableName = process.env.INVENTORY_TABLE_NAME;

/** Sets the quantity of pet 1 to 1 and returns DynamoDB's answer. */
export async function handler(): Promise<UpdateCommandOutput> {
  return client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { petId: 1 },
      UpdateExpression: 'SET quantity = :quantity',
      ExpressionAttributeValues: { ':quantity': 1 },
    }),
  );
}
