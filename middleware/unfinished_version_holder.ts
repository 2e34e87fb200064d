/**
 * unfinished-version-holder: a data version still being written is not
 * published part way.
 *
 * The tool's data writer makes a version's `raw` first and writes it over
 * time (line by line, or as a stream), and writes the version's
 * `metadata.yaml` only when it finalizes the version. The steps of a
 * workflow share one sync service and each flushes when it ends, so one
 * step's push can meet another step's version half written. Published then,
 * create-only, the datastore would keep the truncated `raw` for good, and the
 * writer's own push of the finished version would be refused
 * (`version_exists`, its copy set aside). With `unfinishedVersions: "hold"`
 * (the swamp extension sets it: the tool writes every version's
 * `metadata.yaml`), a new version's `raw` whose directory holds no
 * `metadata.yaml` yet is left out of the push and kept dirty, with the
 * reason; the push after its finalization publishes it with its metadata. A
 * version this cache synced already keeps its own rule (the create-only
 * writer's).
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";

/** The gate's registered name. */
export const UNFINISHED_VERSION_HOLDER = "unfinished-version-holder";

/** Why a held version file was left out. */
export const UNFINISHED_REASON =
  "the data version is still being written (its directory holds no metadata.yaml yet): it is pushed once the version is finalized; if its writer stopped for good, delete the version's directory";

/** A new version's `raw` (never synced here), put by this push. */
function candidate(e: PlanEntry): boolean {
  return e.action === "put" && e.class === "data-version" && e.path.endsWith("/raw") &&
    e.syncedVersion === undefined && !e.prepared;
}

/**
 * The gate (push phase `guard`); acts only where the service's
 * `unfinishedVersions` is `hold`.
 *
 * @example
 * ```ts
 * import { unfinishedVersionHolder } from "./unfinished_version_holder.ts";
 * const gate = unfinishedVersionHolder();
 * ```
 */
export function unfinishedVersionHolder(): Middleware<PushContext> {
  return async function unfinishedVersionHolderGate(ctx, next) {
    if (ctx.config.unfinishedVersions === "hold") {
      const held: string[] = [];
      for (const e of ctx.plan) {
        if (!candidate(e)) continue;
        const dir = e.path.slice(0, e.path.lastIndexOf("/"));
        if ((await ctx.cache.read(`${dir}/metadata.yaml`)) !== null) continue;
        e.action = "skip";
        e.keepDirty = true;
        e.reason = UNFINISHED_REASON;
        e.handledBy.push(UNFINISHED_VERSION_HOLDER);
        held.push(dir);
        ctx.note(UNFINISHED_VERSION_HOLDER, `${dir}: still being written, held back`, e);
      }
      if (held.length > 0) {
        ctx.note(
          UNFINISHED_VERSION_HOLDER,
          `${held.length} data version(s) still being written left for the push after their finalization`,
        );
      }
    }
    await next();
  };
}

/**
 * The gate's default registration (phase `guard`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { unfinishedVersionHolderEntry } from "./unfinished_version_holder.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(unfinishedVersionHolderEntry());
 * ```
 */
export function unfinishedVersionHolderEntry(): MiddlewareEntry<PushContext> {
  return {
    name: UNFINISHED_VERSION_HOLDER,
    phase: "guard",
    middleware: unfinishedVersionHolder(),
    description:
      "with unfinishedVersions: hold, a new data version's raw is not pushed before its metadata.yaml is written (the version finalized)",
  };
}
