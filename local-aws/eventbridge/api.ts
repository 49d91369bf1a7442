/**
 * @module EventBridge's `PutEvents` on the local buses over AWS's JSON 1.1 protocol, as the SDK v3 EventBridge
 * client speaks it: the request and answer are the SDK's own types; each accepted entry becomes an event
 * envelope put on its bus (behaviour.md V1-V6). The signed transport is aws-endpoint.ts.
 * @see https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html
 * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-structure.html
 */
import { randomUUID } from 'node:crypto';
import type {
  PutEventsRequest,
  PutEventsRequestEntry,
  PutEventsResponse,
  PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import type { JsonProtocol, JsonService } from '../common/json-service.ts';
import type { EventBuses, EventEnvelope } from './event-bus.ts';

/** EventBridge's protocol: `X-Amz-Target: AWSEvents.<operation>`, JSON 1.1. */
export const eventBridgeProtocol: JsonProtocol = { targetPrefix: 'AWSEvents', version: '1.1' };

/**
 * A `PutEventsRequestEntry` as the JSON protocol carries it: its `Time` (a `Date` in the SDK) in epoch seconds, as
 * the SDK sends it (a string is read as a date).
 */
export type PutEventsWireEntry = Omit<PutEventsRequestEntry, 'Time'> & { Time?: number | string | undefined };

/** A `PutEventsRequest` as the JSON protocol carries it. */
export type PutEventsWireRequest = Omit<PutEventsRequest, 'Entries'> & {
  Entries: PutEventsWireEntry[] | undefined;
};

/** An EventBridge error answered for the whole request (400 with its `__type`). */
export class EventBridgeError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

/** The most entries one PutEvents takes. */
export const maxEntries = 10;
/** The largest entry (and request), in bytes: 256 KB. */
export const maxEntryBytes = 256 * 1024;

/** The bus an entry names (`EventBusName`, a name or an ARN), else `default`. */
const busOf = (entry: PutEventsWireEntry): string =>
  (entry.EventBusName ?? 'default').split('/').pop() as string;

/** The event time: the entry's `Time` (epoch seconds, as the JSON protocol sends it), else now; whole seconds. */
function eventTime(time: PutEventsWireEntry['Time']): string {
  const date = time === undefined ? new Date() : new Date(typeof time === 'number' ? time * 1000 : time);
  const valid = Number.isNaN(date.getTime()) ? new Date() : date;
  return valid.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Why an entry is refused (its ErrorCode and ErrorMessage, as EventBridge words them), or its detail. */
function entryDetail(entry: PutEventsWireEntry): { detail: unknown } | PutEventsResultEntry {
  for (const name of ['Source', 'DetailType', 'Detail'] as const) {
    if (typeof entry[name] !== 'string' || entry[name] === '') {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${name} is not valid. Reason: ${name} is a required argument.`,
      };
    }
  }
  let detail: unknown;
  try {
    detail = JSON.parse(entry.Detail as string);
  } catch {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  }
  if (detail === null || typeof detail !== 'object' || Array.isArray(detail))
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  return { detail };
}

/**
 * PutEvents on `buses`: one result per entry, in order; each accepted entry is put on its bus. It answers once
 * the entries' messages to SQS targets are stored in their queues (an accepted event is not lost when the
 * process stops: behaviour.md Q9); Lambda targets are invoked after this answer.
 * @throws EventBridgeError ValidationException (no entries, more than 10), ResourceNotFoundException (no such
 *   bus); a queue's journal error (nothing is acknowledged: the caller retries)
 */
export async function putEvents(buses: EventBuses, input: PutEventsWireRequest): Promise<PutEventsResponse> {
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > maxEntries) {
    throw new EventBridgeError(
      'ValidationException',
      `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${maxEntries} and greater than or equal to 1`,
    );
  }
  for (const entry of entries) {
    const bus = busOf(entry);
    if (!buses.has(bus))
      throw new EventBridgeError('ResourceNotFoundException', `Event bus ${bus} does not exist.`);
  }
  const { account, region } = buses.origin;
  const stored: Promise<unknown>[] = [];
  const results = entries.map((entry): PutEventsResultEntry => {
    const checked = entryDetail(entry);
    if (!('detail' in checked)) return checked;
    if (Buffer.byteLength(JSON.stringify(entry)) > maxEntryBytes) {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: 'Total size of the entries in the request is over the limit.',
      };
    }
    const event: EventEnvelope = {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType as string,
      source: entry.Source as string,
      account,
      time: eventTime(entry.Time),
      region,
      resources: entry.Resources ?? [],
      detail: checked.detail,
    };
    stored.push(...buses.publish(busOf(entry), event, entry.Detail as string));
    return { EventId: event.id };
  });
  await Promise.all(stored);
  return {
    FailedEntryCount: results.filter((result) => result.ErrorCode !== undefined).length,
    Entries: results,
  };
}

/** The EventBridge service of `buses` for the endpoint: PutEvents; its errors answer 400 with their `__type`. */
export function eventBridgeService(buses: EventBuses): JsonService {
  return {
    protocol: eventBridgeProtocol,
    operations: { PutEvents: (input: PutEventsWireRequest) => putEvents(buses, input) },
    failure: (error) =>
      error instanceof EventBridgeError
        ? { status: 400, type: error.type, message: error.message }
        : undefined,
  };
}
