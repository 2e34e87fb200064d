/**
 * marker-after-version: a data version's `latest` marker is never published
 * ahead of the version it names.
 *
 * A reader follows `latest` to the version it names. A push that writes the
 * marker while that version's files here are neither published (synced) nor
 * pushed with it would leave every reader pointed at a version the index does
 * not list: a push of the marker alone (`sluice push <dir>/latest`, or
 * `pushChanged({ only })`) after the version was held back (another writer's
 * upload in the way, a failed upload, a version still being written), or
 * with the version's files left out by another gate. Such a marker stays out
 * of the push, dirty, with the reason; the push that publishes its version
 * publishes it too. A marker naming a version this cache does not hold, or
 * holds as synced, is not this gate's concern.
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";

/** The gate's registered name. */
export const MARKER_AFTER_VERSION = "marker-after-version";

/** Why a marker was left out. */
export function markerHeldReason(dir: string): string {
  return `it names ${dir}, whose files here are not published and not in this push: it is pushed with that version (push the version, or the whole cache)`;
}

/** The version directory a marker entry names (its content), if it reads as one. */
async function namedDir(ctx: PushContext, marker: PlanEntry): Promise<string | undefined> {
  const body = await ctx.cache.read(marker.path).catch(() => null);
  if (!body || body.length > 256) return undefined;
  const named = new TextDecoder().decode(body).trim();
  if (!/^[0-9]+$/.test(named)) return undefined;
  return `${marker.path.slice(0, marker.path.lastIndexOf("/"))}/${named}`;
}

/**
 * The gate (push phase `guard`).
 *
 * @example
 * ```ts
 * import { markerAfterVersion } from "./marker_after_version.ts";
 * const gate = markerAfterVersion();
 * ```
 */
export function markerAfterVersion(): Middleware<PushContext> {
  return async function markerAfterVersionGate(ctx, next) {
    const markers = ctx.plan.filter((e) => e.action === "put" && e.class === "latest-marker");
    if (markers.length > 0) {
      // Going with this push: put by it, or uploaded by its preparation.
      const going = new Set(
        ctx.plan.filter((e) => e.action === "put" || e.prepared).map((e) => e.path),
      );
      for (const m of markers) {
        const dir = await namedDir(ctx, m);
        if (dir === undefined) continue;
        const files = await ctx.cache.listFiles(dir).catch(() => [] as string[]);
        const behind = files.filter((f) => !going.has(f) && ctx.state.synced(f) === undefined);
        if (behind.length === 0) continue;
        m.action = "skip";
        m.keepDirty = true;
        m.reason = markerHeldReason(dir);
        ctx.note(MARKER_AFTER_VERSION, `${m.path}: names ${dir}, not published yet: held`, m);
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
 * import { markerAfterVersionEntry } from "./marker_after_version.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(markerAfterVersionEntry());
 * ```
 */
export function markerAfterVersionEntry(): MiddlewareEntry<PushContext> {
  return {
    name: MARKER_AFTER_VERSION,
    phase: "guard",
    middleware: markerAfterVersion(),
    description:
      "a latest marker is not pushed ahead of the version it names (that version's files here neither published nor in the push)",
  };
}
