/**
 * @module A service as the local EventBridge and SQS endpoint serves it over AWS's JSON protocol: its protocol,
 * its operations and its errors' answers. The services define theirs (sqs/api.ts, eventbridge/api.ts); the
 * endpoint's signed transport (aws-endpoint.ts) routes to them; both meet here, below either.
 * @see https://smithy.io/2.0/aws/protocols/aws-json-1_0-protocol.html
 */

/** An AWS JSON protocol as a service speaks it. */
export interface JsonProtocol {
  /** The `X-Amz-Target` prefix of the service's operations (`AmazonSQS`, `AWSEvents`). */
  targetPrefix: string;
  /** Its version: the answers' `Content-Type` is `application/x-amz-json-<version>`. */
  version: '1.0' | '1.1';
}

/**
 * An error answer: HTTP status, `__type` and message; `queryCode` adds SQS's `x-amzn-query-error: <code>;Sender`
 * (the query-protocol code the SDK reports as `Code`).
 */
export interface ServiceFailure {
  status: number;
  type: string;
  message: string;
  queryCode?: string;
}

/**
 * An operation: it takes the request's JSON body, which its own parameter types as the service's SDK input
 * type (the body is trusted to have that shape as far as the SDK's clients send it), and resolves with the
 * answer's body.
 */
export type JsonOperation = (input: never) => unknown;

/** A service the endpoint answers for: its protocol, its operations by name, its errors' answers. */
export interface JsonService {
  protocol: JsonProtocol;
  operations: Readonly<Record<string, JsonOperation>>;
  /** The answer to an error one of its operations threw; undefined for any other error (500 `InternalFailure`). */
  failure(error: unknown): ServiceFailure | undefined;
}
