/**
 * A worker thread of `deno task chaos`: runs the seeds it is sent over the
 * in-memory store and posts back the summed counters and every failing
 * history. Lets a long run use more than one core.
 *
 * @module
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import pMap from "p-map";
import { generateHistory, type GenerateOptions } from "./history.ts";
import { memoryTarget } from "./target.ts";
import { addStats, emptyStats, type HistoryResult } from "./workload.ts";
import { runSeed, type SeedDigest } from "./digest.ts";

/** What the main thread sends. */
export interface WorkerRequest {
  readonly seeds: readonly number[];
  readonly jobs: number;
  readonly disable: readonly string[];
  readonly tempDir?: string;
  /** How histories are drawn (the weights and stall share given). */
  readonly generate?: GenerateOptions;
  /** Run every history twice, and tell when the two runs differed. */
  readonly twice: boolean;
}

/** What a worker posts: progress after each history, then the end. */
export type WorkerMessage =
  | {
    readonly kind: "progress";
    readonly digest: SeedDigest;
    /** Its second run (with `twice`) differed. */
    readonly unstable: boolean;
    readonly failed?: Omit<HistoryResult, "stats" | "fingerprint">;
  }
  | { readonly kind: "done"; readonly stats: ReturnType<typeof emptyStats> };

self.onmessage = async (e: MessageEvent<WorkerRequest>) => {
  const req = e.data;
  const options = { target: memoryTarget, disable: req.disable, tempDir: req.tempDir };
  const total = emptyStats();
  await pMap(req.seeds, async (seed) => {
    const { result: r, digest, unstable } = await runSeed(
      generateHistory(seed, req.generate),
      options,
      req.twice,
    );
    addStats(total, r.stats);
    const failed = r.violations.length > 0
      ? { history: r.history, violations: r.violations, elapsedMs: r.elapsedMs }
      : undefined;
    self.postMessage({ kind: "progress", digest, unstable, failed } satisfies WorkerMessage);
  }, { concurrency: req.jobs });
  self.postMessage({ kind: "done", stats: total } satisfies WorkerMessage);
  self.close();
};
