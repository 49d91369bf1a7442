/**
 * The baseline of the load-time budget, the naive SDK client alone: one `DynamoDBDocumentClient` built at init and
 * one `UpdateCommand` per invocation, no middleware (bench/run.ts bundles it without the trims).
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
