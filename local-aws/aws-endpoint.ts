/**
 * @module The local AWS endpoint: one HTTP server answering EventBridge `PutEvents` (JSON 1.1) and the SQS
 * operations of the SDK v3 SQS client (JSON 1.0), signed with the local credentials (behaviour.md V1, Q1).
 * @see https://smithy.io/2.0/aws/protocols/aws-json-1_0-protocol.html
 * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/Welcome.html
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { advertisedEndpoint, advertiseEndpoint, withdrawEndpoint } from './common/endpoint-file.ts';
import {
  credentialRefusal,
  type Refusal,
  readBody,
  type StoreCredentials,
  signatureRefusal,
} from './common/store-credentials.ts';
import { bodyPending, bodySlots, unverifiedBodySlots } from './common/unverified-bodies.ts';
import { EventBridgeError, type EventBuses } from './eventbridge/event-bus.ts';
import { type LocalQueue, type LocalQueues, SqsError } from './sqs/queues.ts';

/** The services the endpoint answers for. */
export interface AwsServices {
  buses: EventBuses;
  queues: LocalQueues;
}

/** A running endpoint. */
export interface AwsEndpoint {
  /** `http://host:port`. */
  endpoint: string;
  /** Starts answering for `services` (until then every operation is 503 `ServiceUnavailable`). */
  serve(services: AwsServices): void;
  /** Stops accepting, ends open connections (long polls answer at once) and removes the endpoint file. */
  close(): Promise<void>;
}

/**
 * The local AWS endpoint a running local AWS on `dataDir` advertises, for the operator tools (set it as
 * `AWS_ENDPOINT_URL_SQS` / `AWS_ENDPOINT_URL_EVENTBRIDGE`, signing with `<dataDir>/credentials`); undefined
 * when none answers.
 */
export function localAwsEndpoint(dataDir: string): Promise<string | undefined> {
  return advertisedEndpoint(dataDir, 'aws-endpoint');
}

/** Largest request body read: SQS's largest message (1 MiB) with room for the request around it. */
const maxBodyBytes = 2 * 1024 * 1024;

/** An error answer: HTTP status, `__type` and message (and SQS's query-compatible code). */
interface Failure {
  status: number;
  type: string;
  message: string;
  queryCode?: string;
}

/** AWS's error answer: `{"__type", "message"}`; SQS adds `x-amzn-query-error: <code>;Sender`. */
function sendFailure(response: ServerResponse, contentType: string, failure: Failure): void {
  const text = JSON.stringify({ __type: failure.type, message: failure.message });
  response
    .writeHead(failure.status, {
      'Content-Type': contentType,
      'Content-Length': Buffer.byteLength(text),
      ...(failure.queryCode ? { 'x-amzn-query-error': `${failure.queryCode};Sender` } : {}),
      ...(bodyPending(response.req) ? { Connection: 'close' } : {}),
    })
    .end(text);
}

/** A signature refusal as the services answer it: 403 with the error's short type. */
const signatureFailure = (refusal: Refusal): Failure => ({
  status: 403,
  type: refusal.type.split('#').pop() as string,
  message: refusal.message,
});

function sendResult(response: ServerResponse, contentType: string, result: unknown): void {
  const text = JSON.stringify(result ?? {});
  response
    .writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) })
    .end(text);
}

/** System attribute names a ReceiveMessage asked for (`MessageSystemAttributeNames`, or the older `AttributeNames`). */
function wanted(names: unknown): (name: string) => boolean {
  const list = Array.isArray(names) ? (names as string[]) : [];
  return (name) => list.includes('All') || list.includes(name);
}

type Input = Record<string, unknown>;

/** The SQS operations, by `X-Amz-Target` (`AmazonSQS.<operation>`). */
function sqsOperations(queues: LocalQueues, senderId: string) {
  // No function of a served template sends message attributes: refused rather than silently dropped.
  const send = async (queue: LocalQueue, input: Input) => {
    if (input.MessageAttributes !== undefined) {
      throw new SqsError(
        'UnsupportedOperation',
        'AWS.SimpleQueueService.UnsupportedOperation',
        'message attributes are not served locally',
      );
    }
    return queue.send(typeof input.MessageBody === 'string' ? input.MessageBody : '', {
      ...(input.DelaySeconds !== undefined ? { delaySeconds: Number(input.DelaySeconds) } : {}),
      ...(input.MessageGroupId !== undefined ? { messageGroupId: String(input.MessageGroupId) } : {}),
      senderId,
    });
  };
  const sent = (message: Awaited<ReturnType<LocalQueue['send']>>) => ({
    MessageId: message.messageId,
    MD5OfMessageBody: message.md5OfBody,
  });
  /** Runs `each` on every entry of a batch request, in order, as SQS checks a batch. */
  const batch = async (
    input: Input,
    entryName: string,
    each: (entry: Input) => Promise<Record<string, unknown>>,
  ) => {
    const entries = Array.isArray(input.Entries) ? (input.Entries as Input[]) : [];
    if (entries.length === 0)
      throw new SqsError(
        'EmptyBatchRequest',
        'AWS.SimpleQueueService.EmptyBatchRequest',
        `There should be at least one ${entryName} in the request.`,
      );
    if (entries.length > 10)
      throw new SqsError(
        'TooManyEntriesInBatchRequest',
        'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
        `Maximum number of entries per request are 10. You have sent ${entries.length}.`,
      );
    if (new Set(entries.map((entry) => entry.Id)).size !== entries.length)
      throw new SqsError(
        'BatchEntryIdsNotDistinct',
        'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
        'Two or more batch entries in the request have the same Id.',
      );
    // Every entry starts in order before any is awaited, so that their journal writes share one batch.
    const outcomes = entries.map((entry) =>
      each(entry).then(
        (result) => ({ result }),
        (error) => ({ error }),
      ),
    );
    const Successful: Record<string, unknown>[] = [];
    const Failed: Record<string, unknown>[] = [];
    for (const [index, outcome] of (await Promise.all(outcomes)).entries()) {
      const entry = entries[index] as Input;
      if ('result' in outcome) {
        Successful.push({ Id: entry.Id, ...outcome.result });
        continue;
      }
      if (!(outcome.error instanceof SqsError)) throw outcome.error;
      const { type, message } = outcome.error;
      Failed.push({ Id: entry.Id, SenderFault: true, Code: type, Message: message });
    }
    return { Successful, Failed };
  };
  return {
    SendMessage: async (input: Input) => sent(await send(queues.byUrl(input.QueueUrl), input)),
    SendMessageBatch: (input: Input) => {
      const queue = queues.byUrl(input.QueueUrl);
      return batch(input, 'SendMessageBatchRequestEntry', async (entry) => sent(await send(queue, entry)));
    },
    ReceiveMessage: async (input: Input) => {
      const queue = queues.byUrl(input.QueueUrl);
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const waitSeconds = Number(input.WaitTimeSeconds ?? 0);
      if (!Number.isInteger(max) || max < 1 || max > 10)
        throw new SqsError(
          'InvalidParameterValue',
          'AWS.SimpleQueueService.InvalidParameterValue',
          `Value ${max} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.`,
        );
      if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > 20)
        throw new SqsError(
          'InvalidParameterValue',
          'AWS.SimpleQueueService.InvalidParameterValue',
          `Value ${waitSeconds} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.`,
        );
      const received = await queue.receive({
        max,
        waitSeconds,
        ...(input.VisibilityTimeout !== undefined
          ? { visibilityTimeoutSeconds: Number(input.VisibilityTimeout) }
          : {}),
      });
      if (received.length === 0) return {};
      const system = wanted([
        ...((input.MessageSystemAttributeNames as string[]) ?? []),
        ...((input.AttributeNames as string[]) ?? []),
      ]);
      return {
        Messages: received.map(({ message, receiptHandle }) => {
          const attributes: Record<string, string> = {
            SenderId: message.senderId,
            SentTimestamp: String(message.sentTimestamp),
            ApproximateReceiveCount: String(message.receiveCount),
            ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp),
            ...(message.messageGroupId !== undefined && { MessageGroupId: message.messageGroupId }),
          };
          const chosen = Object.fromEntries(Object.entries(attributes).filter(([name]) => system(name)));
          return {
            MessageId: message.messageId,
            ReceiptHandle: receiptHandle,
            MD5OfBody: message.md5OfBody,
            Body: message.body,
            ...(Object.keys(chosen).length > 0 ? { Attributes: chosen } : {}),
          };
        }),
      };
    },
    DeleteMessage: async (input: Input) => {
      await queues.byUrl(input.QueueUrl).delete(String(input.ReceiptHandle ?? ''));
      return {};
    },
    DeleteMessageBatch: (input: Input) => {
      const queue = queues.byUrl(input.QueueUrl);
      return batch(input, 'DeleteMessageBatchRequestEntry', async (entry) => {
        await queue.delete(String(entry.ReceiptHandle ?? ''));
        return {};
      });
    },
    ChangeMessageVisibility: async (input: Input) => {
      await queues
        .byUrl(input.QueueUrl)
        .changeVisibility(String(input.ReceiptHandle ?? ''), Number(input.VisibilityTimeout));
      return {};
    },
    GetQueueUrl: (input: Input) => {
      const queue = typeof input.QueueName === 'string' ? queues.find(input.QueueName) : undefined;
      if (!queue || queue.settings.name !== input.QueueName)
        throw new SqsError(
          'QueueDoesNotExist',
          'AWS.SimpleQueueService.NonExistentQueue',
          'The specified queue does not exist.',
        );
      return { QueueUrl: queue.url };
    },
    GetQueueAttributes: (input: Input) => {
      const queue = queues.byUrl(input.QueueUrl);
      const counts = queue.counts();
      const { settings } = queue;
      const all: Record<string, string> = {
        ApproximateNumberOfMessages: String(counts.visible),
        ApproximateNumberOfMessagesNotVisible: String(counts.notVisible),
        ApproximateNumberOfMessagesDelayed: String(counts.delayed),
        QueueArn: queue.arn,
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(settings.retentionSeconds),
        DelaySeconds: String(settings.delaySeconds),
        ...(settings.redrive && queue.deadLetterQueue
          ? {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: queue.deadLetterQueue.arn,
                maxReceiveCount: settings.redrive.maxReceiveCount,
              }),
            }
          : {}),
      };
      const pick = wanted(input.AttributeNames);
      return { Attributes: Object.fromEntries(Object.entries(all).filter(([name]) => pick(name))) };
    },
  } satisfies Record<string, (input: Input) => unknown>;
}

/** The answer to a browser: 403 without any CORS header (as the embedded DynamoDB: dynamodb.ts). */
const browserRefusal: Failure = {
  status: 403,
  type: 'AccessDeniedException',
  message: 'the local AWS endpoint refuses requests from web pages (Origin header or CORS preflight)',
};

/**
 * Starts the endpoint on `host` (any free port), accepting only requests signed with `credentials`, and
 * writes its URL into `<dataDir>/aws-endpoint` when a data folder is given.
 * @throws when it cannot listen
 */
export async function startAwsEndpoint(options: {
  credentials: StoreCredentials;
  host?: string;
  dataDir?: string;
}): Promise<AwsEndpoint> {
  const { credentials, host = '127.0.0.1' } = options;
  let services: AwsServices | undefined;
  let operations: Record<string, (input: Input) => unknown> = {};
  const slots = bodySlots(unverifiedBodySlots);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const target = String(request.headers['x-amz-target'] ?? '');
    const contentType = target.startsWith('AWSEvents.')
      ? 'application/x-amz-json-1.1'
      : 'application/x-amz-json-1.0';
    if (request.headers.origin !== undefined || request.method === 'OPTIONS') {
      request.resume();
      sendFailure(response, contentType, browserRefusal);
      return;
    }
    // Credentials before the body (README.md "Request bodies before credentials"), then a bounded read.
    const early = credentialRefusal(request, credentials);
    if (early) return sendFailure(response, contentType, signatureFailure(early));
    const release = await slots.acquire();
    const body = await readBody(request, response, maxBodyBytes).finally(release);
    if (!body) return;
    const refusal = await signatureRefusal(request, body, credentials);
    if (refusal) return sendFailure(response, contentType, signatureFailure(refusal));
    if (!services) {
      sendFailure(response, contentType, { status: 503, type: 'ServiceUnavailable', message: 'starting' });
      return;
    }
    const operation = operations[target];
    if (!operation) {
      sendFailure(response, contentType, {
        status: 400,
        type: 'UnknownOperationException',
        message: `unknown operation ${target}`,
      });
      return;
    }
    let input: Input;
    try {
      input = JSON.parse(body.toString('utf8') || '{}') as Input;
    } catch {
      sendFailure(response, contentType, {
        status: 400,
        type: 'SerializationException',
        message: 'the body is not JSON',
      });
      return;
    }
    try {
      sendResult(response, contentType, await operation(input));
    } catch (error) {
      if (error instanceof SqsError) {
        sendFailure(response, contentType, {
          status: 400,
          type: `com.amazonaws.sqs#${error.type}`,
          message: error.message,
          queryCode: error.queryCode,
        });
      } else if (error instanceof EventBridgeError) {
        sendFailure(response, contentType, { status: 400, type: error.type, message: error.message });
      } else {
        sendFailure(response, contentType, {
          status: 500,
          type: 'InternalFailure',
          message: (error as Error).message,
        });
      }
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendFailure(response, 'application/x-amz-json-1.0', {
          status: 500,
          type: 'InternalFailure',
          message: String(error),
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const endpoint = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  if (options.dataDir) await advertiseEndpoint(options.dataDir, 'aws-endpoint', endpoint);
  return {
    endpoint,
    serve(given) {
      services = given;
      const sqs = sqsOperations(given.queues, credentials.accessKeyId);
      operations = {
        'AWSEvents.PutEvents': (input) => given.buses.putEvents(input.Entries as never),
        ...Object.fromEntries(Object.entries(sqs).map(([name, run]) => [`AmazonSQS.${name}`, run])),
      };
    },
    async close() {
      if (options.dataDir) await withdrawEndpoint(options.dataDir, 'aws-endpoint');
      services?.queues.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
