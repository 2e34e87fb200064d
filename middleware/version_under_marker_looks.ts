/**
 * What version-under-marker (`version_under_marker.ts`) looks at before it
 * holds a deletion: the datastore's index read once, the looks of the rule
 * it shares with `resolve --mine` (`sync/version_marker_hold.ts`) over this
 * push, whether a let-through deletion's marker is still published once the
 * uploads are made, and whether any index names the file; and the reasons
 * it gives.
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../sync/context.ts";
import { shellWord } from "../sync/shell_word.ts";
import { readIndex, unlistedEntry } from "../sync/transfer/remote_index.ts";
import { readWriterId, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import type { MarkerLooks } from "../sync/version_marker_hold.ts";
import { isInternalPath, parentOf } from "../sync/paths.ts";
import { listedAfterPush, namedDir } from "./marker_listed.ts";

/** Why a version file's deletion was left out. */
export function underMarkerReason(marker: string, n: string): string {
  const version = `${marker.slice(0, marker.lastIndexOf("/"))}/${n}`;
  return `the latest marker ${marker} names this version (${n}): a version is never deleted while its marker names it, so that no reader is pointed at files the index no longer lists; set ${marker} to another version here, then push both (\`sluice push ${
    shellWord(version)
  } ${shellWord(marker)}\`)`;
}

/**
 * Why the deletion of a version the datastore's committed marker names was
 * left out, the marker here naming `here` (another version, or no number).
 */
export function committedMarkerReason(marker: string, n: string, here: string): string {
  const version = `${marker.slice(0, marker.lastIndexOf("/"))}/${n}`;
  const names = /^[0-9]+$/.test(here) ? `names ${here}` : "names no version";
  return `the datastore's latest marker ${marker} names this version (${n}), and the marker here (it ${names}) is not published by this push in its place (the version it names is neither published nor written by this push, nor listed by the datastore once this push is done), so the datastore's marker stays naming ${n}: a version is never deleted while a marker names it; set ${marker} here to a version that exists (or remove it, where none is left), then push both (\`sluice push ${
    shellWord(version)
  } ${shellWord(marker)}\`)`;
}

/** The datastore's index, read once per push and only when a look asks. */
export function lazyIndex(ctx: PushContext): () => ReturnType<typeof readIndex> {
  let index: ReturnType<typeof readIndex> | undefined;
  return () => index ??= readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
}

/**
 * What the rule of `sync/version_marker_hold.ts` looks at, over this push:
 * the marker here (none where it cannot be read), the hash this cache
 * synced it at, the one the datastore's index lists (`index`: one that
 * cannot be read cannot tell, and counts as naming the version), whether
 * the push writes the marker (planned as a put), the files held here under
 * a version's directory (none listed where they cannot be), a file
 * published already or written by this push, and a version the index lists
 * once the push's take-backs are made (a version this cache's own uploads
 * alone list, deleted here, is not: see `listedAfterPush`; a look that
 * fails holds it).
 */
export function pushMarkerLooks(
  ctx: PushContext,
  index: () => ReturnType<typeof readIndex>,
): MarkerLooks {
  let puts: Set<string> | undefined;
  return {
    rules: ctx.config.classifierRules,
    markerBytes: (marker) => ctx.cache.read(marker).catch(() => null),
    syncedHash: (marker) => ctx.state.synced(marker)?.hash,
    indexedHash: (marker) => index().then((got) => got?.entries[marker]?.h, () => null),
    writesMarker: (marker) =>
      Promise.resolve(ctx.plan.find((e) => e.path === marker)?.action === "put"),
    filesUnder: (dir) => ctx.cache.listFiles(dir).catch(() => null),
    published: (path) => {
      puts ??= new Set(ctx.plan.filter((e) => e.action === "put").map((e) => e.path));
      return puts.has(path) || ctx.state.synced(path) !== undefined;
    },
    indexLists: (dir) => listedAfterPush(ctx, dir).then((got) => got === "listed", () => false),
  };
}

/**
 * Once the uploads are made: whether the marker the deletion `e` waits on
 * is still written by this push, and each file here of the version it
 * names published already or still written (neither held back by a gate
 * nor taken back as lost since). A look that fails holds the deletion.
 */
export async function stillPublished(ctx: PushContext, e: PlanEntry): Promise<boolean> {
  try {
    const marker = `${parentOf(parentOf(e.path))}/latest`;
    if (ctx.plan.find((p) => p.path === marker)?.action !== "put") return false;
    const body = await ctx.cache.read(marker);
    const dir = body ? namedDir(marker, body) : undefined;
    if (dir === undefined) return false;
    const puts = new Set(ctx.plan.filter((p) => p.action === "put").map((p) => p.path));
    const files = (await ctx.cache.listFiles(dir)).filter((f) =>
      !isInternalPath(f, ctx.config.classifierRules)
    );
    return files.every((f) =>
      ctx.state.synced(f) !== undefined || (puts.has(f) && !ctx.withdrawn.has(f))
    );
  } catch {
    return false;
  }
}

/**
 * What the datastore holds at a path a deletion under a marker would
 * delete, its index read once, and only when such a deletion asks. `goes`:
 * no index names an entry there (nor one a v2 shard holds that its meta
 * does not list yet), and the store holds there nothing or this cache's own
 * upload that a take-back recorded as synced. `landed`: the index names
 * there the very version this cache synced, and the store holds nothing
 * there: this deletion was made already (a push of it cut off after its
 * delete, before the index update), and only its commit is missing; held,
 * the entry would name nothing for good (chaos seed 226400214). No index,
 * or one that cannot be read, counts as naming it: the deletion is held
 * (`held`), as before the look. So does another writer's object no index
 * names, or one of this cache's whose commit recorded it: a committed
 * version whose entry an old client's index write dropped, which the
 * marker may name on every clone. Such an object at the very version this
 * cache synced is `dropped`: held, and named again by this push (chaos
 * seed 203100030).
 */
export function unnamedIn(
  ctx: PushContext,
  index: () => ReturnType<typeof readIndex>,
): (path: string) => Promise<"goes" | "landed" | "dropped" | "held"> {
  const o = [ctx.config.retry, ctx.signal] as const;
  return async (path) => {
    try {
      const got = await index();
      if (!got) return "held";
      if (Object.hasOwn(got.entries, path)) {
        const synced = ctx.state.synced(path);
        if (synced === undefined || got.entries[path].v !== synced.version) return "held";
        return await ctx.store.head(path, { signal: ctx.signal }) === null ? "landed" : "held";
      }
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
