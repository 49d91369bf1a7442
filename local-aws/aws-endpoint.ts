/**
 * @module The signed transport of the local EventBridge and SQS endpoint: one HTTP server on `127.0.0.1` that
 * checks each request's SigV4 signature against the local credentials (before reading its body: README.md
 * "Request bodies before credentials"), routes it by `X-Amz-Target` (`<prefix>.<operation>`) to an operation
 * of a served {@link JsonService} (sqs/api.ts, eventbridge/api.ts), and answers in AWS's JSON protocol, its
 * errors in AWS's envelope `{"__type", "message"}` (behaviour.md V1, Q1). It knows no service's operations.
 * @see https://smithy.io/2.0/aws/protocols/aws-json-1_0-protocol.html
 * @see https://smithy.io/2.0/aws/protocols/aws-json-1_1-protocol.html
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { advertisedEndpoint, advertiseEndpoint, withdrawEndpoint } from './common/endpoint-file.ts';
import type { JsonProtocol, JsonService, ServiceFailure } from './common/json-service.ts';
import {
  credentialRefusal,
  type Refusal,
  readBody,
  type StoreCredentials,
  signatureRefusal,
} from './common/store-credentials.ts';
import { bodyPending, bodySlots, unverifiedBodySlots } from './common/unverified-bodies.ts';

/** A running endpoint. */
export interface JsonEndpoint {
  /** `http://host:port`. */
  endpoint: string;
  /**
   * Starts answering for `services` (until then every operation is 503 `ServiceUnavailable`).
   * @throws Error for a service whose protocol was not declared at the start
   */
  serve(services: JsonService[]): void;
  /** Stops accepting, ends open connections and removes the endpoint file (the caller ends its long polls). */
  close(): Promise<void>;
}

/**
 * The EventBridge and SQS endpoint a running local AWS on `dataDir` advertises, for the operator tools (set it
 * as `AWS_ENDPOINT_URL_SQS` / `AWS_ENDPOINT_URL_EVENTBRIDGE`, signing with `<dataDir>/credentials`); undefined
 * when none answers.
 */
export function eventsAndQueuesEndpoint(dataDir: string): Promise<string | undefined> {
  return advertisedEndpoint(dataDir, 'aws-endpoint');
}

/** Largest request body read: SQS's largest message (1 MiB) with room for the request around it. */
const maxBodyBytes = 2 * 1024 * 1024;

/** AWS's error answer: `{"__type", "message"}`; SQS adds `x-amzn-query-error: <code>;Sender`. */
function sendFailure(response: ServerResponse, contentType: string, failure: ServiceFailure): void {
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
const signatureFailure = (refusal: Refusal): ServiceFailure => ({
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

/** The answer to a browser: 403 without any CORS header (as the embedded DynamoDB: dynamodb.ts). */
const browserRefusal: ServiceFailure = {
  status: 403,
  type: 'AccessDeniedException',
  message: 'the local AWS endpoint refuses requests from web pages (Origin header or CORS preflight)',
};

/** The `Content-Type` of the answers of `protocol`. */
const contentTypeOf = (protocol: JsonProtocol | undefined): string =>
  `application/x-amz-json-${protocol?.version ?? '1.0'}`;

/**
 * Starts the endpoint on `host` (any free port), accepting only requests signed with `credentials`, and
 * writes its URL into `<dataDir>/aws-endpoint` when a data folder is given. `protocols`: those of the services
 * it will serve, so that its refusals before {@link JsonEndpoint.serve} already answer in their content type
 * (a target of none of them: JSON 1.0).
 * @throws when it cannot listen
 */
export async function startJsonEndpoint(options: {
  credentials: StoreCredentials;
  protocols: JsonProtocol[];
  host?: string;
  dataDir?: string;
}): Promise<JsonEndpoint> {
  const { credentials, host = '127.0.0.1' } = options;
  let served: ReadonlyMap<string, JsonService> | undefined;
  const slots = bodySlots(unverifiedBodySlots);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const target = String(request.headers['x-amz-target'] ?? '');
    const prefix = target.slice(0, Math.max(0, target.indexOf('.')));
    const protocol = options.protocols.find((candidate) => candidate.targetPrefix === prefix);
    const contentType = contentTypeOf(protocol);
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
    if (!served) {
      sendFailure(response, contentType, { status: 503, type: 'ServiceUnavailable', message: 'starting' });
      return;
    }
    const service = served.get(prefix);
    const operationName = target.slice(prefix.length + 1);
    const operation =
      service && Object.hasOwn(service.operations, operationName)
        ? service.operations[operationName]
        : undefined;
    if (!service || !operation) {
      sendFailure(response, contentType, {
        status: 400,
        type: 'UnknownOperationException',
        message: `unknown operation ${target}`,
      });
      return;
    }
    let input: unknown;
    try {
      input = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      sendFailure(response, contentType, {
        status: 400,
        type: 'SerializationException',
        message: 'the body is not JSON',
      });
      return;
    }
    try {
      sendResult(response, contentType, await operation(input as never));
    } catch (error) {
      sendFailure(
        response,
        contentType,
        service.failure(error) ?? { status: 500, type: 'InternalFailure', message: (error as Error).message },
      );
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendFailure(response, contentTypeOf(undefined), {
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
    serve(services) {
      for (const service of services) {
        if (!options.protocols.includes(service.protocol))
          throw new Error(`the endpoint was not started for ${service.protocol.targetPrefix}`);
      }
      served = new Map(services.map((service) => [service.protocol.targetPrefix, service]));
    },
    async close() {
      if (options.dataDir) await withdrawEndpoint(options.dataDir, 'aws-endpoint');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
