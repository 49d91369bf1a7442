/**
 * Puts change records on the environment's event bus (EventBridge PutEvents): docs/architecture.md "Change
 * records", docs/contract.md "History and events".
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { changeJson } from './change-json.ts';
import { type ChangeEvent, eventSource } from './changes.ts';

/** Entries per PutEvents request: EventBridge's maximum. */
const entriesPerRequest = 10;

/**
 * Publishes `events` in their order on the bus `busName`, in PutEvents requests of at most 10 entries, one after
 * the other: Source `pet-store`, DetailType the event's type, Detail the record's exact JSON (change-json.ts),
 * and for a low-stock event Time its timestamp.
 * @throws Error when EventBridge refuses any entry (`FailedEntryCount` > 0), naming the first error code; any
 *   SDK error. Entries of earlier requests stay published (events are at least once).
 */
export async function publishChanges(
  client: EventBridgeClient,
  busName: string,
  events: readonly ChangeEvent[],
): Promise<void> {
  for (let start = 0; start < events.length; start += entriesPerRequest) {
    const entries = events.slice(start, start + entriesPerRequest).map((event) => ({
      EventBusName: busName,
      Source: eventSource,
      DetailType: event.type,
      Detail: changeJson(event),
      // A low-stock event's timestamp travels as the bus event's time (its data holds none).
      ...(event.type === 'inventory.low_stock' ? { Time: new Date(event.timestamp) } : {}),
    }));
    const { FailedEntryCount, Entries } = await client.send(new PutEventsCommand({ Entries: entries }));
    if (FailedEntryCount) {
      const failed = Entries?.find((entry) => entry.ErrorCode);
      throw new Error(
        `EventBridge refused ${FailedEntryCount} of ${entries.length} events (${failed?.ErrorCode ?? 'no code'})`,
      );
    }
  }
}
