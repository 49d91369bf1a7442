/** The load-time budget's baseline, the naive SDK client alone: docs/performance.md "How each figure is taken". */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const tableName = process.env.INVENTORY_TABLE_NAME;

/** Sets the quantity of pet 1 to 1 and returns DynamoDB's answer. */
export async function handler() {
  const update = {
    UpdateExpression: 'SET quantity = :quantity',
    ExpressionAttributeValues: { ':quantity': 1 },
  };
  return client.send(new UpdateCommand({ TableName: tableName, Key: { petId: 1 }, ...update }));
}
