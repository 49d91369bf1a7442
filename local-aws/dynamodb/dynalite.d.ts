/** Types of the parts of `dynalite` (an embedded DynamoDB API server, no bundled types) that we use. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  /** dynalite's options; `path` omitted keeps the store in memory. Durations in milliseconds. */
  export interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }

  /** Creates an HTTP server speaking the DynamoDB API; `close` also closes its LevelDB store. */
  export default function dynalite(options?: DynaliteOptions): Server;
}
