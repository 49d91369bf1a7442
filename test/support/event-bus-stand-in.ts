/**
 * A stand-in for EventBridge's PutEvents (AWS JSON 1.1, `X-Amz-Target: AWSEvents.PutEvents`) that records every
 * entry it accepts, for the tests of the change records' consumer (docs/architecture.md "Change records").
 */
import { createServer } from 'node:http';
import { listenOnFreePort } from './free-port.ts';

/** One PutEvents entry as received. */
export interface ReceivedEvent {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
}

/** A running stand-in. */
export interface EventBusStandIn {
  /** `http://127.0.0.1:<port>`: the value of `AWS_ENDPOINT_URL_EVENTBRIDGE`. */
  endpoint: string;
  /** The entries of every PutEvents call answered 200, in order; a test may empty it. */
  received: ReceivedEvent[];
  /** Every PutEvents call received (answered or refused), counted from 1. */
  calls: number;
  /**
   * Decides each call from its number ({@link calls}, this one included): `true` answers HTTP 500
   * (`InternalException`, as EventBridge's own fault), nothing recorded. Default: never.
   */
  refuse: (call: number) => boolean;
  close(): Promise<void>;
}

/** Starts an {@link EventBusStandIn} on a free port of 127.0.0.1. */
export async function startEventBusStandIn(): Promise<EventBusStandIn> {
  const bus: EventBusStandIn = {
    endpoint: '',
    received: [],
    calls: 0,
    refuse: () => false,
    close: async () => {},
  };
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const target = String(incoming.headers['x-amz-target'] ?? '');
    const headers = { 'Content-Type': 'application/x-amz-json-1.1' };
    if (target !== 'AWSEvents.PutEvents') {
      outgoing.writeHead(400, headers).end(JSON.stringify({ __type: 'UnknownOperationException' }));
      return;
    }
    bus.calls += 1;
    if (bus.refuse(bus.calls)) {
      outgoing
        .writeHead(500, { ...headers, 'x-amzn-ErrorType': 'InternalException' })
        .end(JSON.stringify({ __type: 'InternalException', message: 'fault' }));
      return;
    }
    const { Entries } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries: ReceivedEvent[] };
    bus.received.push(...Entries);
    const answer = {
      FailedEntryCount: 0,
      Entries: Entries.map((_, index) => ({ EventId: `${bus.calls}-${index}` })),
    };
    outgoing.writeHead(200, headers).end(JSON.stringify(answer));
  });
  ({ endpoint: bus.endpoint, close: bus.close } = await listenOnFreePort(server));
  return bus;
}
