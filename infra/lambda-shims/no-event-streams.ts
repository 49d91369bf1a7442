/**
 * Stand-in for `@smithy/core/event-streams` inside the Lambda bundles (esbuild `alias` in infra/bundling.ts).
 *
 * The SDK's protocol layer imports event-stream support on demand, for operations whose input or output is an
 * event stream. DynamoDB has none, but esbuild inlines the on-demand import, so every bundle carried 15 KB of
 * event-stream codec. If an operation ever needs it, this stand-in fails loudly instead of misbehaving.
 */

const message = 'event streams are not bundled (see infra/lambda-shims/no-event-streams.ts)';

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
