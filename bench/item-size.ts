/**
 * Item sizes by DynamoDB's documented rules ("Item sizes and formats", DynamoDB Developer Guide), used to
 * predict scan pages (1 MB of data read per Scan request) and read/write units, independent of what the
 * embedded DynamoDB reports. All sizes in bytes.
 *
 * - an attribute costs the UTF-8 length of its name plus the size of its value;
 * - String: UTF-8 length; Binary: byte length; Boolean and Null: 1;
 * - Number: 1 byte per two significant digits (leading and trailing zeros trimmed), plus 1;
 * - List and Map: 3 bytes, plus 1 per element, plus the elements (a Map's elements with their names).
 */
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';

/** Size of a Number written in decimal, e.g. `-9223372036854775808` (19 significant digits: 11 bytes). */
export function numberBytes(decimal: string): number {
  const digits = decimal.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

/** UTF-8 length of a string. */
export function stringBytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** Size of one inventory entry as stored: `petId` (N), `quantity` (N), `status` (S). */
export function inventoryItemBytes(item: InventoryItem): number {
  return (
    stringBytes('petId') +
    numberBytes(item.petId) +
    stringBytes('quantity') +
    numberBytes(String(item.quantity)) +
    stringBytes('status') +
    stringBytes(item.status)
  );
}

/** Bytes per scan page: DynamoDB stops a Scan after 1 MB of data read. */
export const scanPageBytes = 1024 * 1024;

/** Bytes per read unit: one strongly consistent read of up to 4 KB, or two eventually consistent ones. */
export const readUnitBytes = 4096;

/** Bytes per write unit: one write of up to 1 KB. */
export const writeUnitBytes = 1024;

/** The scan pages a full Scan of a table holding `tableBytes` needs: ceil(tableBytes / 1 MB), at least 1. */
export function expectedScanPages(tableBytes: number): number {
  return Math.max(1, Math.ceil(tableBytes / scanPageBytes));
}

/**
 * Read request units of an eventually consistent full Scan: each page of up to 1 MB is rounded up to 4 KB
 * and costs 0.5 unit per 4 KB; approximately tableBytes / 8 KB.
 */
export function expectedScanReadUnits(tableBytes: number): number {
  let units = 0;
  for (let left = tableBytes; left > 0; left -= scanPageBytes) {
    units += Math.ceil(Math.min(left, scanPageBytes) / readUnitBytes) * 0.5;
  }
  return Math.max(units, 0.5);
}
