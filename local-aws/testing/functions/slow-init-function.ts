/**
 * A stand-in function whose static code (its Init phase) takes `INIT_DELAY_MS` milliseconds before the handler
 * exists (behaviour.md S13); the handler answers 200 at once.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';

await new Promise((resolve) => setTimeout(resolve, Number(process.env.INIT_DELAY_MS)));

/** The Lambda handler (`index.handler`): 200 with `{"initialized":true}`. */
export async function handler(): Promise<APIGatewayProxyResult> {
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ initialized: true }),
  };
}
