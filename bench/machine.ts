/**
 * The machine a run was taken on, printed with the figures (speed figures mean nothing without it).
 */

import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';

/** Cores, CPU model, memory (GB, 1 GB = 2^30 bytes) and Node version of this machine. */
export interface Machine {
  /** Cores available to this process (`nproc`). */
  cores: number;
  /** `model name` of the first CPU in /proc/cpuinfo, or `unknown`. */
  cpuModel: string;
  memoryGb: number;
  node: string;
  platform: string;
}

/** Describes this machine. */
export function describeMachine(): Machine {
  let cpuModel = 'unknown';
  try {
    cpuModel =
      /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux: keep "unknown"
  }
  return {
    cores: availableParallelism(),
    cpuModel,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}
