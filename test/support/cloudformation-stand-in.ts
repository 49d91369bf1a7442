/** Starts a stand-in for CloudFormation's DescribeStacks (docs/contract.md "Operator tooling"). */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnFreePort } from './free-port.ts';

/** A stack as DescribeStacks reports it: its name and outputs (key to value). */
export interface StandInStack {
  name: string;
  outputs: Record<string, string>;
}

/** A running stand-in. */
export interface CloudFormationStandIn {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_CLOUDFORMATION`. */
  endpoint: string;
  /** The form parameters of every request received, in order. */
  requests: Record<string, string>[];
  close(): Promise<void>;
}

const namespace = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The `<member>` of a stack in a DescribeStacks result, with the fields the API always returns. */
function stackMember(stack: StandInStack): string {
  const outputs = Object.entries(stack.outputs)
    .map(
      ([key, value]) =>
        `<member><OutputKey>${escapeXml(key)}</OutputKey><OutputValue>${escapeXml(value)}</OutputValue></member>`,
    )
    .join('');
  return [
    '<member>',
    `<StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${escapeXml(stack.name)}/0a1b2c3d-0000-4000-8000-000000000000</StackId>`,
    `<StackName>${escapeXml(stack.name)}</StackName>`,
    '<CreationTime>2026-01-01T00:00:00.000Z</CreationTime>',
    '<StackStatus>UPDATE_COMPLETE</StackStatus>',
    '<DisableRollback>false</DisableRollback>',
    `<Outputs>${outputs}</Outputs>`,
    '</member>',
  ].join('');
}

function errorResponse(code: string, message: string, requestId: string): string {
  return `<ErrorResponse xmlns="${namespace}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
}

function send(response: ServerResponse, status: number, body: string, requestId: string): void {
  response.writeHead(status, {
    'content-type': 'text/xml',
    'content-length': Buffer.byteLength(body),
    'x-amzn-requestid': requestId,
  });
  response.end(body);
}

async function formOf(request: IncomingMessage): Promise<Record<string, string>> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return Object.fromEntries(new URLSearchParams(body));
}

/**
 * Starts the stand-in on a free port of 127.0.0.1, knowing `stacks`.
 *
 * A protocol-level stand-in for CloudFormation, which has no local emulator: an HTTP server speaking the
 * CloudFormation Query API (form-encoded POST, XML answers, API version 2010-05-15) for `DescribeStacks`
 * only, so that the operator tools' `--env` path runs offline through the real SDK client, its request
 * serializer and its XML parser. It is not a fake of DynamoDB: the tables the resolved names point at live in
 * a real DynamoDB API (dynalite).
 *
 * It answers as CloudFormation does: a known stack with its outputs; an unknown one with HTTP 400 and the
 * `ValidationError` "Stack with id <name> does not exist"; any other action with HTTP 400 `InvalidAction`.
 * Every request's form parameters are recorded.
 */
export async function startCloudFormationStandIn(
  stacks: readonly StandInStack[],
): Promise<CloudFormationStandIn> {
  const requests: Record<string, string>[] = [];
  const server = createServer((request, response) => {
    void formOf(request).then((form) => {
      requests.push(form);
      const requestId = randomUUID();
      if (request.method !== 'POST' || form.Action !== 'DescribeStacks') {
        send(
          response,
          400,
          errorResponse('InvalidAction', `not supported: ${form.Action}`, requestId),
          requestId,
        );
        return;
      }
      const name = form.StackName ?? '';
      const stack = stacks.find((s) => s.name === name);
      if (!stack) {
        const message = `Stack with id ${name} does not exist`;
        send(response, 400, errorResponse('ValidationError', message, requestId), requestId);
        return;
      }
      const body = `<DescribeStacksResponse xmlns="${namespace}"><DescribeStacksResult><Stacks>${stackMember(stack)}</Stacks></DescribeStacksResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></DescribeStacksResponse>`;
      send(response, 200, body, requestId);
    });
  });
  const { endpoint, close } = await listenOnFreePort(server);
  return { endpoint, requests, close };
}
