/**
 * A seed's digest: what one history did, in a few fields, so that two runs of
 * `deno task chaos --json` can be compared seed by seed. A history runs the
 * same way every time (its scheduler, clock and randomness are drawn from its
 * seed), so each seed's digest must be equal across runs, whatever `--jobs`
 * and `--workers` were.
 *
 * One thing the checker does not own: a clone's manifest records keep each
 * file's ctime, which the filesystem stamps in real time and Deno reports in
 * whole seconds. A walk writes a record again when a file's ctime moved with
 * its bytes unchanged (a marker put back as it was), so whether a second
 * ended between the record and that change decides whether the manifest log
 * gets the line. The service takes no clock or stat for ctimes (`fileClock`
 * judges mtimes only), so the checker cannot make them its own: the
 * `damaged` move, which picks a line of that log, leaves such lines out of
 * its pick (`ctime_lines.ts`), and `--twice` ({@link runSeed}) names any
 * seed that still ran differently.
 *
 * @module
 */
import { sha256HexSync } from "../../sync/hash.ts";
import type { ChaosStats, HistoryResult, WorkloadOptions } from "./stats.ts";
import type { History } from "./history.ts";
import { runHistory } from "./workload.ts";

/** One history's digest. */
export interface SeedDigest {
  readonly seed: number;
  /** Store calls made through the scheduler. */
  readonly calls: number;
  /** Scheduling decisions. */
  readonly decisions: number;
  /** Digest of every counter of the history (outcome and warning counts in key order). */
  readonly stats: string;
  /** Digest of the history's fingerprint (every outcome, and the store's objects). */
  readonly fingerprint: string;
}

const enc = new TextEncoder();

/** The first 12 hex digits of the SHA-256 of `text`. */
function short(text: string): string {
  return sha256HexSync(enc.encode(text)).slice(0, 12);
}

/** `r` with its keys in order (nested records too), as JSON. */
function orderedJson(stats: ChaosStats): string {
  const entries = Object.entries(stats).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return JSON.stringify(
    entries.map(([k, v]) =>
      typeof v === "number"
        ? [k, v]
        : [k, Object.entries(v as Record<string, number>).sort(([a], [b]) => a < b ? -1 : 1)]
    ),
  );
}

/** The digest of one history's result. */
export function seedDigest(
  r: Pick<HistoryResult, "history" | "stats" | "fingerprint">,
): SeedDigest {
  return {
    seed: r.history.seed,
    calls: r.stats.storeCalls,
    decisions: r.stats.decisions,
    stats: short(orderedJson(r.stats)),
    fingerprint: short(r.fingerprint),
  };
}

/** The seeds whose digests differ between two runs (seeds in only one of them too), in order. */
export function differingSeeds(
  a: readonly SeedDigest[],
  b: readonly SeedDigest[],
): number[] {
  const key = (d: SeedDigest) => JSON.stringify(d);
  const inA = new Map(a.map((d) => [d.seed, key(d)]));
  const inB = new Map(b.map((d) => [d.seed, key(d)]));
  const seeds = new Set([...inA.keys(), ...inB.keys()]);
  return [...seeds].filter((s) => inA.get(s) !== inB.get(s)).sort((x, y) => x - y);
}

/** One history run (twice when asked), with its digest and whether a second run's differed. */
export interface SeedRun {
  readonly result: HistoryResult;
  readonly digest: SeedDigest;
  /** With `twice`: the second run's digest differed from the first's. */
  readonly unstable: boolean;
}

/**
 * Runs `history`, and with `twice` runs it again and compares the two
 * digests: the first run is the one reported.
 */
export async function runSeed(
  history: History,
  options: WorkloadOptions,
  twice: boolean,
): Promise<SeedRun> {
  const result = await runHistory(history, options);
  const digest = seedDigest(result);
  if (!twice) return { result, digest, unstable: false };
  const again = seedDigest(await runHistory(history, options));
  return { result, digest, unstable: differingSeeds([digest], [again]).length > 0 };
}
