/** Type of `JSON.rawJSON` (TC39 "JSON.parse source text access"), how an int64 petId is written exactly. */
declare global {
  interface JSON {
    /** A value that `JSON.stringify` writes as `text` itself; `text` must be a JSON primitive literal. */
    rawJSON(text: string): unknown;
  }
}

export {};
