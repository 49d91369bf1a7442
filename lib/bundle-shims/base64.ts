/**
 * Bundle stand-in for `@stablelib/base64` (standardwebhooks' base64, in JavaScript): node:buffer's, with the
 * strictness of the original's `decode` (standard alphabet, padded to a multiple of 4, else it throws).
 * docs/architecture.md "Bundles".
 */

/** Standard base64 (RFC 4648 section 4) of `data`, padded. */
export function encode(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

/**
 * The bytes of standard, padded base64 `text`.
 * @throws Error when `text` has characters outside the alphabet or is not padded to a multiple of 4
 */
export function decode(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new Error('Base64Coder: incorrect padding');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('Base64Coder: incorrect characters for decoding');
  return new Uint8Array(Buffer.from(text, 'base64'));
}
