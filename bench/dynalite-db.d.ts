/** Types of the one internal function of dynalite the bench uses (bench/emulator-size.ts). */
declare module 'dynalite/db/index.js' {
  import type { AttributeValue } from '@aws-sdk/client-dynamodb';

  /**
   * dynalite's size of an item in bytes. With `compress` and `addMetaSize` true: the size it counts toward a
   * Query or Scan page's 1 MB limit (attribute names count 1 byte, plus per-item storage overhead).
   */
  export function itemSize(
    item: Record<string, AttributeValue>,
    compress?: boolean,
    addMetaSize?: boolean,
    rangeKey?: string,
  ): number;
}
