/**
 * A pull as the sync service runs it: {@link pull} with the service's
 * collaborators, the waits the last push recorded forgotten for what it
 * took, and a cancellation said as one.
 *
 * @module
 */
import { cancelled } from "./cancelled.ts";
import { pull, type PullDeps, type PullResult } from "./pull.ts";
import { forgetWaiting } from "./waiting_record.ts";

/** What stays the same from one pull of a service to the next. */
export type PullBase = Omit<
  PullDeps,
  "signal" | "restoreDeleted" | "defer" | "adopting" | "holdBack" | "resolvingTheirs"
>;

/** What a single pull is told (see `pullChanged` of the service). */
export type PullCall =
  & Pick<PullDeps, "restoreDeleted" | "defer" | "adopting" | "holdBack" | "resolvingTheirs">
  & {
    readonly signal?: AbortSignal;
  };

/**
 * Pulls (see {@link pull}) with `base` and `call`, under `prefixes`.
 *
 * @example
 * ```ts
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * console.log((await svc.pullChanged()).fetched); // []
 * ```
 */
export async function runPull(
  base: PullBase,
  call: PullCall,
  prefixes?: readonly string[],
): Promise<PullResult> {
  const { signal, ...rest } = call;
  try {
    const result = await pull({
      ...base,
      ...rest,
      signal: signal ?? new AbortController().signal,
    }, prefixes);
    // Taken from the datastore, or found a conflict: no push waits there now.
    if (!signal?.aborted) {
      await forgetWaiting(base.cache, [...result.fetched, ...result.conflicts]);
    }
    return result;
  } catch (e) {
    throw cancelled(
      e,
      signal,
      "The pull",
      "Files already written stay in the cache; local changes were not touched. Run `sluice pull` again to take the rest.",
    );
  }
}
