/**
 * A stand-in for the SQS operations the webhook functions and tool call (AWS JSON 1.0, `x-amz-target:
 * AmazonSQS.<Operation>`, as @aws-sdk/client-sqs speaks it): it records what was sent and answers as SQS does,
 * MD5 digests included. It keeps no queue: the local service's SQS endpoint runs queues (local-api).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { listenOnFreePort } from './free-port.ts';

/** One request the stand-in received: the operation (`SendMessageBatch`, ...) and its JSON input. */
export interface SqsRequest {
  operation: string;
  input: Record<string, unknown>;
}

/** A running stand-in. */
export interface SqsStandIn {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_SQS`. */
  endpoint: string;
  /** The URL GetQueueUrl answers, whatever the name. */
  queueUrl: string;
  /** Every request received, in order. */
  requests: SqsRequest[];
  /** The bodies sent to the queue (SendMessage and SendMessageBatch entries), parsed, in order. */
  sentBodies(): unknown[];
  /** While set, sends answer: SendMessageBatch every entry Failed, SendMessage a 500 InternalError. */
  failSends: boolean;
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

async function jsonOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/** Starts the stand-in on a free port of 127.0.0.1. */
export async function startSqsStandIn(): Promise<SqsStandIn> {
  const requests: SqsRequest[] = [];
  const standIn: SqsStandIn = {
    endpoint: '',
    queueUrl: '',
    requests,
    failSends: false,
    sentBodies: () =>
      requests.flatMap(({ operation, input }) => {
        if (operation === 'SendMessage') return [JSON.parse(String(input.MessageBody))];
        if (operation === 'SendMessageBatch') {
          return (input.Entries as { MessageBody: string }[]).map((e) => JSON.parse(e.MessageBody));
        }
        return [];
      }),
    close: async () => {},
  };
  const server = createServer(async (request, response) => {
    const operation = String(request.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
    const input = await jsonOf(request);
    requests.push({ operation, input });
    const answer = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      response.writeHead(status, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': randomUUID(),
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    };
    const internal = { __type: 'com.amazonaws.sqs#InternalError', message: 'stand-in asked to fail' };
    switch (operation) {
      case 'GetQueueUrl':
        return answer(200, { QueueUrl: standIn.queueUrl });
      case 'ChangeMessageVisibility':
        return answer(200, {});
      case 'SendMessage':
        if (standIn.failSends) return answer(500, internal);
        return answer(200, { MessageId: randomUUID(), MD5OfMessageBody: md5(String(input.MessageBody)) });
      case 'SendMessageBatch': {
        const entries = input.Entries as { Id: string; MessageBody: string }[];
        if (standIn.failSends) {
          return answer(200, {
            Successful: [],
            Failed: entries.map((e) => ({
              Id: e.Id,
              SenderFault: false,
              Code: 'InternalError',
              Message: 'asked to fail',
            })),
          });
        }
        return answer(200, {
          Successful: entries.map((e) => ({
            Id: e.Id,
            MessageId: randomUUID(),
            MD5OfMessageBody: md5(e.MessageBody),
          })),
          Failed: [],
        });
      }
      default:
        return answer(400, {
          __type: 'com.amazonaws.sqs#InvalidAction',
          message: `not stood in: ${operation}`,
        });
    }
  });
  const listening = await listenOnFreePort(server);
  standIn.endpoint = listening.endpoint;
  standIn.queueUrl = `${listening.endpoint}/123456789012/webhook-deliveries`;
  standIn.close = listening.close;
  return standIn;
}
