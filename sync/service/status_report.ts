/**
 * What `status` reports: a dry run of a push (nothing written, locally or
 * remotely), its entries with their class and gates, and what a push now
 * would leave behind, with the paths the last push waited on another
 * writer's upload at (`waiting_record.ts`), which a dry run does not read.
 *
 * @module
 */
import type { PlanEntry, WriteContext, WriteGateEntry } from "../context.ts";
import type { LeftBehind } from "../left_behind.ts";
import type { Pipeline } from "../pipeline.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { ObjectStore } from "../ports.ts";
import type { UnreachableError } from "../errors.ts";
import { pushLeftBehind } from "./push_result.ts";
import { type PushRunDeps, runPush } from "./push_run.ts";
import {
  deletedUnderMarkerReason,
  LOCAL_DELETION_REASON,
  replacedByDirectoryReason,
  statusEntries,
  type StatusEntry,
} from "./status.ts";
import { readWaiting, WAITED_HERE } from "./waiting_record.ts";
import { markerHolding, VERSION_UNDER_MARKER } from "../version_marker.ts";

/**
 * `store` with every call failing at once with `error`: for a status that
 * already found the datastore unreachable, whose dry run would otherwise
 * wait out each read's retries again for the same answer.
 */
function offlineStore(store: ObjectStore, error: UnreachableError): ObjectStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      if (key === "list") {
        // deno-lint-ignore require-yield
        return async function* () {
          throw error;
        };
      }
      if (["get", "getStream", "put", "head", "delete"].includes(String(key))) {
        return () => Promise.reject(error);
      }
      return value.bind(target);
    },
  });
}

/**
 * The status of the cache `deps` push from: a dry run's entries (with
 * `walk`, files changed but not marked dirty too) and what a push now would
 * leave behind. `offline`: the datastore was found unreachable just before,
 * so the dry run's reads fail at once with that error (as they would after
 * their retries).
 *
 * @example
 * ```ts
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * console.log((await svc.statusReport()).entries); // []
 * ```
 */
export async function statusReport(
  deps: PushRunDeps,
  write: Pipeline<WriteContext>,
  cache: LocalCache,
  walk?: boolean,
  offline?: UnreachableError,
): Promise<{ entries: StatusEntry[]; leftBehind: LeftBehind }> {
  const ctxRef: { plan?: PlanEntry[] } = {};
  const run = offline ? { ...deps, store: offlineStore(deps.store, offline) } : deps;
  const dry = await runPush(run, { dryRun: true, walk }, ctxRef);
  const planned = statusEntries(
    ctxRef.plan ?? [],
    dry.localDeletions,
    write.ordered() as WriteGateEntry[],
    dry.localOnly,
  );
  const leftBehind = pushLeftBehind(dry);
  // What the last push found holding a path (another writer's upload), which
  // a dry run does not read: a push now would most likely wait there again.
  const waiting = await readWaiting(cache);
  // A deletion waits there as a write does (one a resolution's push held
  // back included): its push deletes nothing over another writer's upload.
  const waits = (e: StatusEntry) => Object.hasOwn(waiting, e.path) && e.action !== "skip";
  // A data version deleted here whose marker here names it: a push by path
  // would hold that deletion back, so the way on names the marker first.
  const underMarker = new Map<string, string>();
  if (deps.pushPipeline.has(VERSION_UNDER_MARKER)) {
    for (const e of planned) {
      if (e.reason !== LOCAL_DELETION_REASON) continue;
      const held = await markerHolding(cache, e.path, deps.config.classifierRules);
      if (held) underMarker.set(e.path, deletedUnderMarkerReason(held.marker, held.n));
    }
  }
  const entries = planned.map((e) =>
    waits(e)
      ? { ...e, reason: `${WAITED_HERE}: ${waiting[e.path]}` }
      : e.reason === LOCAL_DELETION_REASON && cache.holdsDirectory(e.path)
      ? { ...e, reason: replacedByDirectoryReason(e.path) }
      : underMarker.has(e.path)
      ? { ...e, reason: underMarker.get(e.path)! }
      : e
  );
  const held = entries.filter(waits);
  return {
    entries,
    leftBehind: held.length
      ? {
        ...leftBehind,
        left: [...leftBehind.left, ...held.map((e) => ({ path: e.path, reason: e.reason! }))],
      }
      : leftBehind,
  };
}
