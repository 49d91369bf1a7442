/**
 * Powertools' DynamoDB persistence layer whose in-progress record names the Lambda request that wrote it:
 * docs/architecture.md "Writes exactly once", docs/contract.md "Exactly once under retries".
 */
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import {
  type AttributeValue,
  DynamoDBClient,
  type DynamoDBClientConfig,
  type PutItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { withDeadline } from '../http/deadline.ts';

/** The record's attribute naming the request that wrote it (beside Powertools' own: id, status, expiration...). */
const requestIdAttribute = 'requestId';
/** Powertools' status of a record whose request is still running (its `IdempotencyRecordStatus.INPROGRESS`). */
const inProgress = 'INPROGRESS';

/** The settings of {@link RequestPersistenceLayer}: the table (key `id`, Powertools' defaults) and the client's. */
export interface RequestPersistenceOptions {
  tableName: string;
  clientConfig: DynamoDBClientConfig;
}

/**
 * Powertools' {@link DynamoDBPersistenceLayer} whose PutItem of an in-progress record also writes the Lambda
 * request id given by {@link registerRequest}. The SDK sends that PutItem again when its first attempt
 * committed but answered late (after the request timeout); the retry then fails Powertools' condition on the
 * request's own record. Such a refusal, whose old item (`ALL_OLD`, which Powertools asks for) is in progress
 * and names this request, is the request's own earlier attempt and is answered as the success it was, so a
 * request sent once is never told 409 `conflict` by its own retry. A record of another request is refused as
 * Powertools refuses it. One request at a time, as a Lambda execution environment runs them.
 */
export class RequestPersistenceLayer extends DynamoDBPersistenceLayer {
  #requestId: string | undefined;

  constructor({ tableName, clientConfig }: RequestPersistenceOptions) {
    const client = withDeadline(new DynamoDBClient(clientConfig));
    super({ tableName, awsSdkV3Client: client });
    // Around every attempt of the SDK (the retries happen later in the stack): the request id is written with
    // each PutItem, and the refusal of the request's own record is turned into the success it was.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const requestId = this.#requestId;
        if (context.commandName !== 'PutItemCommand' || requestId === undefined) return next(args);
        const input = args.input as PutItemCommandInput;
        input.Item = { ...input.Item, [requestIdAttribute]: { S: requestId } };
        try {
          return await next(args);
        } catch (error) {
          if (!isOwnRecord(error, requestId)) throw error;
          return { output: { $metadata: (error as { $metadata: object }).$metadata }, response: undefined };
        }
      },
      { step: 'initialize', name: 'ownInProgressRecord' },
    );
  }

  /** Names the Lambda request (`context.awsRequestId`) whose records the next calls write. */
  registerRequest(requestId: string): void {
    this.#requestId = requestId;
  }
}

/** True when `error` refused a PutItem because of an in-progress record of the request `requestId`. */
function isOwnRecord(error: unknown, requestId: string): boolean {
  const held = (error as { Item?: Record<string, AttributeValue> }).Item;
  return (
    (error as Error).name === 'ConditionalCheckFailedException' &&
    held?.status?.S === inProgress &&
    held?.[requestIdAttribute]?.S === requestId
  );
}
