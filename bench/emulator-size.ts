/**
 * The size the embedded DynamoDB (dynalite) counts toward a Scan page's 1 MB limit, in bytes. It differs from
 * the documented item size (bench/item-size.ts): dynalite models DynamoDB's internal storage format, where
 * an attribute name costs 1 byte and each item carries about 20 bytes of overhead. DynamoDB does not
 * document its own figure, so on AWS a full Scan needs between ceil(documented bytes / 1 MB) pages and this
 * count; the bench checks the service against what the emulator actually does.
 */
import { itemSize } from 'dynalite/db/index.js';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';

/** dynalite's page-limit size of one inventory entry, in bytes. */
export function emulatorScanBytes(item: InventoryItem): number {
  return itemSize(
    { petId: { N: item.petId }, quantity: { N: String(item.quantity) }, status: { S: item.status } },
    true,
    true,
  );
}
