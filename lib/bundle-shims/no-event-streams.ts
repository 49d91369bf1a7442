/** Bundle stand-in for `@smithy/core/event-streams`, which throws: docs/architecture.md "Bundles". */

const message = 'event streams are not bundled (see lib/bundle-shims/no-event-streams.ts)';

/** Never constructed for DynamoDB; throws if it ever is. */
export class EventStreamSerde {
  constructor() {
    throw new Error(message);
  }
}

/** Never called for DynamoDB; throws if it ever is. */
export function eventStreamSerdeProvider(): never {
  throw new Error(message);
}
