/**
 * The embedded DynamoDB's own credentials and its check of every request's SigV4 signature against them
 * (README.md "The embedded DynamoDB").
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseEnv } from 'node:util';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { bodyPending, bodySlots, unverifiedBodySlots } from './unverified-bodies.ts';

/** An access key id and its secret, as the AWS SDK takes them. */
export interface StoreCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Fresh random credentials: an access key id of 20 characters (as AWS's) and a secret of 240 random bits. */
export function newStoreCredentials(): StoreCredentials {
  return {
    accessKeyId: `LOCAL${randomBytes(8).toString('hex').slice(0, 15).toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
}

/** The AWS SDK's environment variables for `credentials` (what a process or a function signs with). */
export function credentialVariables(credentials: StoreCredentials): Record<string, string> {
  return { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey };
}

/** The file of a data folder that holds its store's credentials, as `NAME=value` lines (`env $(cat ...)`). */
export function credentialsFile(dataDir: string): string {
  return join(dataDir, 'credentials');
}

/**
 * The credentials of the store in `dataDir`: read from its credentials file, or generated into it (mode 0600)
 * when there is none (a first start).
 * @throws when the file exists but lacks either variable, or cannot be read or written
 */
export async function dataFolderCredentials(dataDir: string): Promise<StoreCredentials> {
  const file = credentialsFile(dataDir);
  if (!existsSync(file)) {
    const credentials = newStoreCredentials();
    const lines = Object.entries(credentialVariables(credentials)).map(
      ([name, value]) => `${name}=${value}\n`,
    );
    await writeFile(file, lines.join(''), { mode: 0o600, flag: 'wx' });
    return credentials;
  }
  const variables = parseEnv(await readFile(file, 'utf8'));
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = variables;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error(
      `${file} must hold AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: remove it to get new ones`,
    );
  }
  return { accessKeyId, secretAccessKey };
}

/** A refusal in DynamoDB's error format: HTTP 400 and `{"__type", "message"}`. */
export interface Refusal {
  type: string;
  message: string;
}

/**
 * DynamoDB's refusals of a request it cannot authenticate (HTTP 400; the messages are DynamoDB's own:
 * README.md "The embedded DynamoDB").
 */
const refusals = {
  missing: {
    type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
    message: 'Request is missing Authentication Token',
  },
  incomplete: {
    type: 'com.amazon.coral.service#IncompleteSignatureException',
    message:
      'Authorization header requires Credential, SignedHeaders and Signature, and an X-Amz-Date header',
  },
  unrecognized: {
    type: 'com.amazon.coral.service#UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  },
  invalid: {
    type: 'com.amazon.coral.service#InvalidSignatureException',
    message:
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  },
} satisfies Record<string, Refusal>;

/** A SigV4 `Authorization` header: `AWS4-HMAC-SHA256 Credential=<id>/<date>/<region>/<service>/aws4_request, ...`. */
const authorizationPattern =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** `X-Amz-Date`, ISO 8601 basic format. */
const amzDatePattern = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** How far a request's `X-Amz-Date` may be from now, as AWS allows: 15 minutes. */
const maxClockSkewMs = 15 * 60 * 1000;

/** The parts of a request's SigV4 headers that the signature check needs. */
interface SignedRequest {
  region: string;
  service: string;
  signedHeaders: string;
  signature: string;
  signingDate: Date;
}

/**
 * What the headers alone tell of `request`: a refusal (no, malformed or foreign credentials, a session token,
 * a signing date more than 15 minutes off), or the parts to check the signature with. Reads no body.
 */
function credentialCheck(request: IncomingMessage, credentials: StoreCredentials): Refusal | SignedRequest {
  const authorization = request.headers.authorization;
  if (authorization === undefined) return refusals.missing;
  const match = authorizationPattern.exec(authorization);
  const date = amzDatePattern.exec(String(request.headers['x-amz-date'] ?? ''));
  if (!match || !date) return refusals.incomplete;
  const [, accessKeyId, , region, service, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId || request.headers['x-amz-security-token'] !== undefined) {
    return refusals.unrecognized;
  }
  const [, year, month, day, hour, minute, second] = date.map(Number) as number[];
  const signingDate = new Date(Date.UTC(year as number, (month as number) - 1, day, hour, minute, second));
  if (Math.abs(Date.now() - signingDate.getTime()) > maxClockSkewMs) return refusals.invalid;
  return {
    region: region as string,
    service: service as string,
    signedHeaders: signedHeaders as string,
    signature: signature as string,
    signingDate,
  };
}

/**
 * Why the headers of `request` cannot be signed with `credentials`, before its body is read (no credentials,
 * malformed, another access key, a session token, a date off by more than 15 minutes); undefined when only the
 * signature over the body can tell.
 */
export function credentialRefusal(
  request: IncomingMessage,
  credentials: StoreCredentials,
): Refusal | undefined {
  const checked = credentialCheck(request, credentials);
  return 'type' in checked ? checked : undefined;
}

/**
 * Why `request` (with its body `body`) is not signed with `credentials`, or undefined when it is: the headers
 * as {@link credentialRefusal} checks them, then the signature computed again with the AWS SDK's own signer
 * (`@smithy/signature-v4`) over the headers the request says it signed (the body's hash included: a declared
 * `X-Amz-Content-SHA256` must be the body's), compared in constant time. A session token is refused: the store
 * issues none.
 */
export async function signatureRefusal(
  request: IncomingMessage,
  body: Buffer,
  credentials: StoreCredentials,
): Promise<Refusal | undefined> {
  const checked = credentialCheck(request, credentials);
  if ('type' in checked) return checked;
  const { region, service, signedHeaders, signature, signingDate } = checked;
  // The signer takes a signed `X-Amz-Content-SHA256` for the body's hash (the AWS SDK sends one): it must be.
  const declaredHash = request.headers['x-amz-content-sha256'];
  if (declaredHash !== undefined && declaredHash !== createHash('sha256').update(body).digest('hex')) {
    return refusals.invalid;
  }
  const names = signedHeaders.split(';');
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    if (value === undefined) return refusals.invalid;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const url = new URL(request.url ?? '/', 'http://localhost');
  const signer = new SignatureV4({
    credentials,
    region,
    service,
    sha256: Sha256,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method ?? 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
    },
    { signingDate, signingRegion: region, signingService: service, signableHeaders: new Set(names) },
  );
  const expected = Buffer.from(
    /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1] ?? '',
  );
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? undefined : refusals.invalid;
}

/**
 * Reads the whole body of `request` (the signature covers it) up to `maxBytes`: answers the bytes, or
 * undefined once more arrive, after answering 413 on `response` and closing the connection (the rest unread).
 */
export async function readBody(
  request: IncomingMessage,
  response: ServerResponse,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      response.writeHead(413, { Connection: 'close' }).end();
      request.socket.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Largest request body read before the check: dynalite's own limit (16 MB); a larger one is 413. */
const maxBodyBytes = 16 * 1024 * 1024;

/** Answers DynamoDB's refusal: HTTP 400, `{"__type", "message"}`; the connection closes when the body is unread. */
function refuse(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  const text = JSON.stringify({ __type: refusal.type, message: refusal.message });
  response.writeHead(400, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(text),
    ...(bodyPending(request) ? { Connection: 'close' } : {}),
  });
  response.end(text);
}

/**
 * Puts the signature check in front of `server`'s request listeners: a request whose headers cannot be signed
 * with `credentials` is refused before a byte of its body is read; the others' bodies are read at most
 * {@link unverifiedBodySlots} at once (the rest wait, unread) and checked; a request not signed with
 * `credentials` is answered with DynamoDB's refusal and reaches nothing; a signed one is passed on with its body
 * replayed.
 */
export function requireSignature(server: Server, credentials: StoreCredentials): void {
  const handlers = server.listeners('request') as RequestListener[];
  const slots = bodySlots(unverifiedBodySlots);
  server.removeAllListeners('request');
  server.on('request', async (request, response) => {
    const early = credentialRefusal(request, credentials);
    if (early) return refuse(request, response, early);
    const release = await slots.acquire();
    let body: Buffer | undefined;
    let refusal: Refusal | undefined;
    try {
      body = await readBody(request, response, maxBodyBytes);
      if (body) refusal = await signatureRefusal(request, body, credentials);
    } catch {
      // The client went away mid-body: nothing to answer.
      request.socket.destroy();
      return;
    } finally {
      release();
    }
    if (!body) return;
    if (refusal) return refuse(request, response, refusal);
    const replay = Object.assign(Readable.from(body.length > 0 ? [body] : []), {
      method: request.method,
      url: request.url,
      headers: request.headers,
      socket: request.socket,
    }) as unknown as IncomingMessage;
    for (const handler of handlers) handler(replay, response);
  });
}
