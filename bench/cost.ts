/**
 * DynamoDB cost per 1,000 requests of each operation, in on-demand request units (RRU for reads, WRU for
 * writes), from the capacity DynamoDB (here the emulator) reported for one request, and for the list from
 * the formula of bench/item-size.ts too: an eventually consistent Scan costs 0.5 RRU per 4 KB of data read,
 * each 1 MB page rounded up to 4 KB, so about ceil(table bytes / 4 KB) x 0.5 RRU per list, whatever the
 * projection. The dollar figure uses {@link onDemandPrices}; check the current price list of the region.
 */
import { expectedScanReadUnits } from './item-size.ts';
import type { ScalingResult } from './list-scaling.ts';
import type { WarmResult } from './warm.ts';

/**
 * On-demand prices, US dollars per million request units (us-east-1, standard table class, as published
 * since November 2024).
 */
export const onDemandPrices = { rru: 0.125, wru: 0.625 } as const;

/** Cost of 1,000 requests of one operation. */
export interface OperationCost {
  operation: string;
  /** Which unit: RRU or WRU. */
  unit: 'RRU' | 'WRU';
  /** Units per 1,000 requests, as measured (emulator's consumed capacity). */
  unitsPer1000: number;
  /** Units per 1,000 requests by DynamoDB's documented sizes (list only). */
  predictedPer1000?: number;
  /** US dollars per 1,000 requests at {@link onDemandPrices}. */
  dollarsPer1000: number;
  note: string;
}

const dollars = (units: number, unit: 'RRU' | 'WRU') =>
  (units * (unit === 'RRU' ? onDemandPrices.rru : onDemandPrices.wru)) / 1e6;

/** Costs from the warm run (one request each, demo table) and the list scaling run (the 10,000 step). */
export function operationCosts(
  warm: readonly WarmResult[],
  scaling: readonly ScalingResult[],
  demoTableBytes: number,
): OperationCost[] {
  const costs: OperationCost[] = [];
  const unitsOf = (name: string) => warm.find((w) => w.name === name)?.handlerDb.capacityUnits ?? Number.NaN;
  const listDemo = unitsOf('listInventory') * 1000;
  costs.push({
    operation: 'listInventory (demo table, 24 entries)',
    unit: 'RRU',
    unitsPer1000: listDemo,
    predictedPer1000: expectedScanReadUnits(demoTableBytes) * 1000,
    dollarsPer1000: dollars(listDemo, 'RRU'),
    note: `one Scan page of ${demoTableBytes} bytes`,
  });
  for (const step of scaling.filter((s) => s.entries === 10000)) {
    const units = step.handler.db.capacityUnits * 1000;
    costs.push({
      operation: `listInventory (${step.entries} entries)`,
      unit: 'RRU',
      unitsPer1000: units,
      predictedPer1000: step.expectedReadUnits * 1000,
      dollarsPer1000: dollars(units, 'RRU'),
      note: `${step.handler.db.requests} Scan page(s) of ${step.tableBytes} bytes in all`,
    });
  }
  const update = unitsOf('updateInventory') * 1000;
  costs.push({
    operation: 'updateInventory',
    unit: 'WRU',
    unitsPer1000: update,
    dollarsPer1000: dollars(update, 'WRU'),
    note: 'one conditional UpdateItem on an item under 1 KB; a 404 (condition failed) costs the same',
  });
  const auth = unitsOf('authorizer') * 1000;
  costs.push({
    operation: 'authorizer (per invocation)',
    unit: 'RRU',
    unitsPer1000: auth,
    dollarsPer1000: dollars(auth, 'RRU'),
    note: 'one eventually consistent GetItem; API Gateway caches an Allow per token for 300 s',
  });
  return costs;
}
