/**
 * version-under-marker: a data version is never deleted from the datastore
 * while its `latest` marker names it.
 *
 * A push that deletes a version's files (`sluice push <version dir>` after
 * the directory was removed here, or `pushChanged({ only })`) while the
 * marker here still names that version would leave every reader pointed at
 * files the index no longer lists. So a deletion of a data version file
 * whose directory the marker in this cache names (the marker as it is here
 * now, changed or not) is left out, dirty, with the reason; moving the
 * marker to another version here first (and pushing both) deletes it. A
 * marker removed here too, or naming another version, lets it through. A
 * `resolve --mine` that would publish such a deletion is refused before its
 * push instead (`version_under_marker`, `sync/version_marker.ts`): held
 * here, it would leave the conflict gone and the deletion waiting for good.
 *
 * So does a file no index names any more: its deletion takes nothing from a
 * reader the marker points at. That is a withdrawal of this cache's own
 * upload cut off part way (`dropOwnStranded` in `sync/service/push_delete.ts`
 * takes the entry out first, records the upload as synced, then deletes it):
 * held here, the unnamed upload would stay on the datastore for good, and
 * every peer's write of the path would wait on it as on an uncommitted one
 * (chaos seed 199930188).
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { shellWord } from "../sync/shell_word.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import { readIndex, unlistedEntry } from "../sync/transfer/remote_index.ts";
import { readWriterId, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { markerBeside, markerNamesHere, VERSION_UNDER_MARKER } from "../sync/version_marker.ts";

/** The gate's registered name. */
export { VERSION_UNDER_MARKER };

/** Why a version file's deletion was left out. */
export function underMarkerReason(marker: string, n: string): string {
  const version = `${marker.slice(0, marker.lastIndexOf("/"))}/${n}`;
  return `the latest marker ${marker} names this version (${n}): a version is never deleted while its marker names it, so that no reader is pointed at files the index no longer lists; set ${marker} to another version here, then push both (\`sluice push ${
    shellWord(version)
  } ${shellWord(marker)}\`)`;
}

/**
 * The gate (push phase `guard`).
 *
 * @example
 * ```ts
 * import { versionUnderMarker } from "./version_under_marker.ts";
 * const gate = versionUnderMarker();
 * ```
 */
export function versionUnderMarker(): Middleware<PushContext> {
  return async function versionUnderMarkerGate(ctx, next) {
    // The marker of each data name, read once: what it names here now.
    const named = new Map<string, string | null>();
    const unnamed = unnamedIn(ctx);
    for (const e of ctx.plan) {
      if (e.action !== "delete" || e.class !== "data-version") continue;
      const { marker, n } = markerBeside(e.path);
      if (!named.has(marker)) named.set(marker, await markerNamesHere(ctx.cache, marker));
      if (named.get(marker) !== n) continue;
      const look = await unnamed(e.path);
      if (look === "goes") {
        ctx.note(VERSION_UNDER_MARKER, `${e.path}: no index names it, its deletion goes`, e);
        continue;
      }
      e.action = "skip";
      e.keepDirty = true;
      e.reason = underMarkerReason(marker, n);
      e.handledBy.push(VERSION_UNDER_MARKER);
      // Its entry dropped, the store holding the version synced: held, it
      // would stay named by no index for good (a pull leaves a deletion
      // marked here to the push), so the push names it again.
      if (look === "dropped") e.nameSynced = true;
      ctx.note(VERSION_UNDER_MARKER, `${e.path}: ${marker} names its version, kept`, e);
    }
    await next();
  };
}

/**
 * What the datastore holds at a path a deletion under a marker would
 * delete, its index read once, and only when such a deletion asks. `goes`:
 * no index names an entry there (nor one a v2 shard holds that its meta
 * does not list yet), and the store holds there nothing or this cache's own
 * upload that a take-back recorded as synced. No index, or one that cannot
 * be read, counts as naming it: the deletion is held (`held`), as before
 * the look. So does another writer's object no index names, or one of this
 * cache's whose commit recorded it: a committed version whose entry an old
 * client's index write dropped, which the marker may name on every clone.
 * Such an object at the very version this cache synced is `dropped`: held,
 * and named again by this push (chaos seed 203100030).
 */
function unnamedIn(ctx: PushContext): (path: string) => Promise<"goes" | "dropped" | "held"> {
  const o = [ctx.config.retry, ctx.signal] as const;
  let index: ReturnType<typeof readIndex> | undefined;
  return async (path) => {
    try {
      index ??= readIndex(ctx.store, ...o, ctx.config.concurrency);
      const got = await index;
      if (!got || Object.hasOwn(got.entries, path)) return "held";
      if (await unlistedEntry(ctx.store, got, path, ...o) !== undefined) return "held";
      const there = await ctx.store.head(path, { signal: ctx.signal });
      if (there === null) return "goes";
      const synced = ctx.state.synced(path);
      // This cache's own upload, recorded as synced by a take-back (which
      // records no `own`), not by the commit of a version it created.
      if (
        there.metadata?.[WRITER_METADATA] === (await readWriterId(ctx.cache) ?? undefined) &&
        synced?.own === undefined
      ) return "goes";
      return synced?.version === there.version ? "dropped" : "held";
    } catch {
      return "held";
    }
  };
}

/**
 * The gate's default registration (phase `guard`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { versionUnderMarkerEntry } from "./version_under_marker.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(versionUnderMarkerEntry());
 * ```
 */
export function versionUnderMarkerEntry(): MiddlewareEntry<PushContext> {
  return {
    name: VERSION_UNDER_MARKER,
    phase: "guard",
    middleware: versionUnderMarker(),
    description:
      "a data version is never deleted from the datastore while its latest marker here names it",
  };
}
