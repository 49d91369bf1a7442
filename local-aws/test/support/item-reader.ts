/**
 * A stand-in function of the side-by-side suite (test/side-by-side.test.ts): a Lambda proxy handler that reads
 * the item `{ id: <query id> }` of the table `TABLE_NAME` with an SDK client built from its own environment
 * (the endpoint and credentials its template's served variables gave it), and answers 200 with the item (its
 * attributes as DynamoDB JSON) and the DynamoDB endpoint it used.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

const client = new DynamoDBClient({});

/** The Lambda handler (`index.handler`). */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: process.env.TABLE_NAME,
      Key: { id: { S: event.queryStringParameters?.id ?? '' } },
    }),
  );
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ item: Item ?? null, endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB }),
  };
}
