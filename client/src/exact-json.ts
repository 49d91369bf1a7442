/** JSON with exact int64 (`bigint`): docs/contract.md "Integers in request bodies"; client/README.md "@pet-store/client". */
import { int64Properties } from './schema.ts';

declare global {
  interface JSON {
    /** A value that `JSON.stringify` writes as `text` itself. */
    rawJSON(text: string): unknown;
  }
}

/** What a reviver gets as its third argument: the source text of a primitive value. */
interface ReviverContext {
  source?: string;
}

const integerText = /^-?(0|[1-9][0-9]*)$/;

/**
 * Parses a response body: every number in an int64 property (client/src/schema.ts `int64Properties`)
 * becomes the `bigint` of its source text; other values as `JSON.parse` gives them.
 * @throws SyntaxError for text that is not JSON; TypeError for an int64 property that is not an integer.
 */
export function parseExactJson(text: string): unknown {
  const reviver = (key: string, value: unknown, context?: ReviverContext) => {
    if (typeof value !== 'number' || !int64Properties.has(key)) return value;
    const source = context?.source ?? '';
    if (!integerText.test(source)) throw new TypeError(`${key} is not an int64 integer: ${source}`);
    return BigInt(source);
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** Writes a request body: a `bigint` anywhere as its exact decimal digits. */
export function stringifyExactJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    typeof member === 'bigint' ? JSON.rawJSON(member.toString()) : member,
  );
}
