/**
 * What version-under-marker (`version_under_marker.ts`) looks at before it
 * holds a deletion: the marker here, the datastore's index read once, the
 * committed marker and whether this push publishes the marker here in its
 * place, whether a let-through deletion's marker is still published once
 * the uploads are made, and whether any index names the file; and the
 * reasons it gives.
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../sync/context.ts";
import { shellWord } from "../sync/shell_word.ts";
import { readIndex, unlistedEntry } from "../sync/transfer/remote_index.ts";
import { readWriterId, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { sha256Hex } from "../sync/hash.ts";
import { isInternalPath, parentOf } from "../sync/paths.ts";
import { listedAfterPush, namedDir } from "./marker_stranded.ts";

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

/**
 * The text of the marker here (trimmed; empty where it is too long to be a
 * version number), or null where there is none (removed here too).
 */
export async function markerHere(ctx: PushContext, marker: string): Promise<string | null> {
  const bytes = await ctx.cache.read(marker).catch(() => null);
  if (!bytes) return null;
  return bytes.length <= 64 ? new TextDecoder().decode(bytes).trim() : "";
}

/** The datastore's index, read once per push and only when a look asks. */
export function lazyIndex(ctx: PushContext): () => ReturnType<typeof readIndex> {
  let index: ReturnType<typeof readIndex> | undefined;
  return () => index ??= readIndex(ctx.store, ctx.config.retry, ctx.signal, ctx.config.concurrency);
}

/**
 * Whether a deletion of version `n` under `marker`, which the marker here
 * does not name, is held all the same (`held`): the committed marker names
 * `n` (the one this cache synced, which a put-back of its own upload
 * restores, or the one the datastore's index names, an index that cannot
 * be read counting as naming it), and this push cannot
 * publish the marker here in its place (see `publishable`, which holds it
 * when its look fails). `watch`: it names `n`, and the marker here is
 * published as far as the plan tells (looked at again before the commit:
 * `stillPublished`); `free`: it names another version.
 */
export function committedNames(
  ctx: PushContext,
  index: () => ReturnType<typeof readIndex>,
): (marker: string, n: string) => Promise<"held" | "watch" | "free"> {
  const can = new Map<string, Promise<boolean>>();
  return async (marker, n) => {
    const enc = new TextEncoder();
    const hashes = await Promise.all([n, `${n}\n`].map((t) => sha256Hex(enc.encode(t))));
    const names = (h: string | undefined) => h !== undefined && hashes.includes(h);
    // An index that cannot be read may name `n` (another writer moved the
    // marker onto it since this cache synced it): taken as naming it, as
    // `unnamedIn` does, so that the deletion is never let through on a
    // failed look while its own request and the commit may go through.
    if (
      !names(ctx.state.synced(marker)?.hash) &&
      !(await index().then((got) => names(got?.entries[marker]?.h), () => true))
    ) return "free";
    if (!can.has(marker)) can.set(marker, publishable(ctx, marker).catch(() => false));
    return await can.get(marker) ? "watch" : "held";
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
 * Whether this push can publish the marker here: it writes the marker
 * (planned), the marker names a version (a number), and that version is
 * one a reader can follow once the push is done: its files here each
 * published already or written by this push, or, none held here, listed by
 * the datastore's index once the push's take-backs are made (a version
 * this cache's own uploads alone list, deleted here, is not: see
 * `listedAfterPush`). Otherwise marker-after-version holds it, and the
 * datastore's marker stays the committed one (or is put back to it).
 */
async function publishable(ctx: PushContext, marker: string): Promise<boolean> {
  if (ctx.plan.find((e) => e.path === marker)?.action !== "put") return false;
  const body = await ctx.cache.read(marker);
  const dir = body ? namedDir(marker, body) : undefined;
  if (dir === undefined) return false;
  const held = await ctx.cache.listFiles(dir);
  const files = held.filter((f) => !isInternalPath(f, ctx.config.classifierRules));
  if (held.length > 0 && files.length === 0) return true;
  if (files.length === 0) return await listedAfterPush(ctx, dir) === "listed";
  const puts = new Set(ctx.plan.filter((e) => e.action === "put").map((e) => e.path));
  return files.every((f) => puts.has(f) || ctx.state.synced(f) !== undefined);
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
export function unnamedIn(
  ctx: PushContext,
  index: () => ReturnType<typeof readIndex>,
): (path: string) => Promise<"goes" | "dropped" | "held"> {
  const o = [ctx.config.retry, ctx.signal] as const;
  return async (path) => {
    try {
      const got = await index();
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
