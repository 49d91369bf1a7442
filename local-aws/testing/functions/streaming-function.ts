/**
 * A stand-in streaming function (behaviour.md S9): its prelude is status 201 with `Content-Type: text/plain`
 * and `X-Streamed: yes`, then it writes `first,` and, 200 ms later, `second`; with the query `?fail=after-prelude`
 * it throws once `first,` is written.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The Lambda handler (`index.handler`), wrapped by the runtime's `streamifyResponse`. @throws Error when asked to */
export const handler = awslambda.streamifyResponse(
  async (event: APIGatewayProxyEvent, responseStream: awslambda.HttpResponseStream) => {
    const stream = awslambda.HttpResponseStream.from(responseStream, {
      statusCode: 201,
      headers: { 'Content-Type': 'text/plain', 'X-Streamed': 'yes' },
    });
    stream.write('first,');
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (event.queryStringParameters?.fail === 'after-prelude') throw new Error('asked to fail mid-stream');
    stream.end('second');
  },
);
