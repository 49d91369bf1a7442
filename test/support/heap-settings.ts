/**
 * The V8 flags `npm start` runs with, for the server the tests and the bench start as `npm start` does
 * (docs/architecture.md "Local API memory"): the young generation fixed at
 * 2 x 16 MB and the old generation collected once it has grown 20 % past what the last collection kept, so
 * the embedded DynamoDB's short-lived objects of a long list do not grow the heap with the table.
 */
export const serverNodeFlags = [
  '--min-semi-space-size=16',
  '--max-semi-space-size=16',
  '--heap-growing-percent=20',
] as const;
