/** A stand-in Lambda proxy function that answers 200 with the event it received, as JSON (behaviour.md). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** The Lambda handler (`index.handler`): the body is the received event, `JSON.stringify`'d. */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(event),
  };
}
