/**
 * sendTestWebhook's test event (docs/contract.md "History and events": what an endpoint's owner sees and
 * steers): a `webhook.test` delivery with `data` `{"endpointId"}`, sent to the delivery queue directly, so that it
 * is never on the bus nor in the events feed; the delivery signs, attempts and records it as any other.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { type DeliveryMessage, testEventType } from './delivery-message.ts';

/** The delivery of a new test event to `endpointId` at `now`: its id `test_` + base64url of 12 random bytes. */
export function testDelivery(endpointId: string, now: Date): DeliveryMessage {
  return {
    endpointId: endpointId,
    eventId: `test_${randomBytes(12).toString('base64url')}`,
    type: testEventType,
    timestamp: now.toISOString(),
    data: { endpointId },
  };
}
