/**
 * DynamoDB cost per 1,000 requests of each operation, in on-demand request units (RRU for reads, WRU for
 * writes), from the capacity DynamoDB (here the emulator) reported for one request; for the list at each size,
 * the read units of its Queries of the list index (list-http.ts). The dollar figure uses {@link onDemandPrices};
 * check the current price list of the region.
 */
import type { ListResult } from './list-http.ts';
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
  /** US dollars per 1,000 requests at {@link onDemandPrices}. */
  dollarsPer1000: number;
  note: string;
}

const dollars = (units: number, unit: 'RRU' | 'WRU') =>
  (units * (unit === 'RRU' ? onDemandPrices.rru : onDemandPrices.wru)) / 1e6;

/** Costs from the warm run (one request each, demo table) and the list runs over HTTP (every size). */
export function operationCosts(warm: readonly WarmResult[], lists: readonly ListResult[]): OperationCost[] {
  const costs: OperationCost[] = [];
  const unitsOf = (name: string) => warm.find((w) => w.name === name)?.handlerDb.capacityUnits ?? Number.NaN;
  const listDemo = unitsOf('listInventory') * 1000;
  costs.push({
    operation: 'listInventory (demo table, 24 entries)',
    unit: 'RRU',
    unitsPer1000: listDemo,
    dollarsPer1000: dollars(listDemo, 'RRU'),
    note: 'one Query of each of the 8 shards of the list index (at least 0.5 RRU each)',
  });
  for (const step of lists) {
    const units = step.readUnits * 1000;
    costs.push({
      operation: `listInventory (${step.entries} entries)`,
      unit: 'RRU',
      unitsPer1000: units,
      dollarsPer1000: dollars(units, 'RRU'),
      note: `Query pages of the list index, ${step.bodyMb.toFixed(1)} MB of JSON per list`,
    });
  }
  const update = unitsOf('updateInventory') * 1000;
  costs.push({
    operation: 'updateInventory',
    unit: 'WRU',
    unitsPer1000: update,
    dollarsPer1000: dollars(update, 'WRU'),
    note: 'one conditional UpdateItem: the item and its list index entry, each under 1 KB',
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
