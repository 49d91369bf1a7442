/** A local HTTP receiver of webhook deliveries that records each request (docs/contract.md "History and events"). */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOnFreePort } from './free-port.ts';

/** One request the receiver got: method, path, headers (lower-case names), body text, epoch ms its body ended. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** How the receiver answers a request: a status and headers, or a stall of `stallMs` before answering 200. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string> } | { stallMs: number };

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  port: number;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** How it answers the next requests (default 204). */
  answer: ReceiverAnswer;
  close(): Promise<void>;
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    endpoint: '',
    port: 0,
    requests: [],
    answer: { status: 204 },
    close: async () => {},
  };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    receiver.requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      receivedAt: Date.now(),
    });
    const answer = receiver.answer;
    if ('stallMs' in answer) {
      const timer = setTimeout(() => response.writeHead(200).end(), answer.stallMs);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    response.writeHead(answer.status, answer.headers).end();
  });
  const listening = await listenOnFreePort(server);
  receiver.endpoint = listening.endpoint;
  receiver.port = listening.port;
  receiver.close = listening.close;
  return receiver;
}
