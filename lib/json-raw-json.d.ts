/**
 * Type of `JSON.rawJSON` (TC39 "JSON.parse source text access", in V8 since Node 21), not yet in TypeScript's
 * lib: it makes `JSON.stringify` write `text` verbatim, which is how an int64 petId is written exactly.
 */
declare global {
  interface JSON {
    /** A value that `JSON.stringify` writes as `text` itself; `text` must be a JSON primitive literal. */
    rawJSON(text: string): unknown;
  }
}

export {};
