/**
 * What each bundle stand-in of infra/bundling.ts buys: docs/performance.md "The bundle trims". Every function is
 * bundled as deployed and again without one stand-in at a time; the KB it saves in each function whose bundle
 * holds it, and the load time it saves in the function it saves most in (the load-time method of
 * {@link measureLoadTimes}).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleAliases, bundleFileName, esbuildOptions } from '#infra/bundling.ts';
import { bytesPerKb } from './budgets.ts';
import { type Loadable, measureLoadTimes } from './functions.ts';

/** A deployed function: its name, handler module and environment (the production template's). */
export type BenchFunction = { name: string; entry: string; environment: Record<string, string> };

/** One stand-in's figures: KB saved per function holding it; load CPU and wall ms with and without it in `in`. */
export interface TrimSaving {
  standIn: string;
  aliases: string[];
  kbSaved: { name: string; kb: number; withoutKb: number }[];
  load?: { in: string; cpuMs: number; withoutCpuMs: number; wallMs: number; withoutWallMs: number };
}

/** Bundles `entry` into `outdir` with `alias`: its KB and the source files it holds. */
async function bundled(entry: string, outdir: string, alias: Record<string, string>) {
  const { metafile } = await build({ ...esbuildOptions(entry, outdir), alias });
  const inputs = Object.values(metafile?.outputs ?? {}).flatMap((output) => Object.keys(output.inputs));
  return { kb: statSync(join(outdir, bundleFileName)).size / bytesPerKb, inputs };
}

/** Each stand-in's {@link TrimSaving} over `functions`, bundled under `scratch`; load times over `rounds` processes. */
export async function measureTrims(functions: readonly BenchFunction[], scratch: string, rounds: number) {
  const standIns = [...new Set(Object.values(bundleAliases))];
  const full = await Promise.all(
    functions.map(async ({ name, entry }) => ({
      name,
      ...(await bundled(entry, join(scratch, name), bundleAliases)),
    })),
  );
  const savings: TrimSaving[] = [];
  for (const standIn of standIns) {
    const aliases = Object.keys(bundleAliases).filter(
      (from) => bundleAliases[from as keyof typeof bundleAliases] === standIn,
    );
    const others = Object.fromEntries(
      Object.entries(bundleAliases).filter(([from]) => !aliases.includes(from)),
    );
    const saving: TrimSaving = { standIn, aliases, kbSaved: [] };
    const shim = standIn.slice(2);
    for (const [i, { name, entry }] of functions.entries()) {
      const deployed = full[i];
      if (!deployed?.inputs.includes(shim)) continue;
      const without = await bundled(entry, join(scratch, `${name}-without-${aliases[0]}`), others);
      saving.kbSaved.push({ name, kb: without.kb - deployed.kb, withoutKb: without.kb });
    }
    const most = saving.kbSaved.reduce<TrimSaving['kbSaved'][number] | undefined>(
      (a, b) => (a && a.kb >= b.kb ? a : b),
      undefined,
    );
    if (most) saving.load = { in: most.name, cpuMs: 0, withoutCpuMs: 0, wallMs: 0, withoutWallMs: 0 };
    savings.push(saving);
  }
  // The load times, all bundles in one rotation so that every pair sees the same machine.
  const loadables: Loadable[] = savings.flatMap(({ aliases, load }) => {
    const fn = functions.find(({ name }) => name === load?.in);
    if (!fn || !load) return [];
    const file = (dir: string) => join(scratch, dir, bundleFileName);
    return [
      { name: fn.name, file: file(fn.name), environment: fn.environment },
      {
        name: `${fn.name}-without-${aliases[0]}`,
        file: file(`${fn.name}-without-${aliases[0]}`),
        environment: fn.environment,
      },
    ];
  });
  const unique = [...new Map(loadables.map((loadable) => [loadable.name, loadable])).values()];
  const times = new Map((await measureLoadTimes(unique, rounds)).map((time) => [time.name, time]));
  for (const { aliases, load } of savings) {
    if (!load) continue;
    const [deployed, without] = [times.get(load.in), times.get(`${load.in}-without-${aliases[0]}`)];
    Object.assign(load, {
      cpuMs: deployed?.cpuMs ?? Number.NaN,
      wallMs: deployed?.wallMs ?? Number.NaN,
      withoutCpuMs: without?.cpuMs ?? Number.NaN,
      withoutWallMs: without?.wallMs ?? Number.NaN,
    });
  }
  return savings;
}
