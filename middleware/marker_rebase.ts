/**
 * `latest` markers: a pointer to the newest data version of a data name,
 * never data of their own. When this cache's marker write is refused by a
 * committed change of another writer (whose run published another version
 * of the same data name meanwhile) and this cache's marker names a higher
 * version than the datastore's, nothing is lost by writing it over theirs:
 * both versions stay published, and the marker names the newer. The
 * config-cas-writer hands such a write here instead of recording a conflict
 * that every later run of the model would leave unpushed (each run's marker
 * held back behind it until someone resolved it by hand). The write is made
 * again over the version the datastore holds now, still as a
 * compare-and-swap, so two writers racing still make one winner; the loser
 * keeps its marker dirty and its next push does the same again.
 *
 * Only a peer's marker that moved forward is written over this way, by a
 * marker of this cache's that moved forward too, to a version the
 * datastore's index lists: the version the marker was synced at (its base)
 * is below both, and the peer's names the highest version the index lists
 * (this push's own left out): a peer that moved the marker forward and then
 * back (a rollback) above this cache's base leaves the versions it moved
 * back from listed above its marker (a version this cache's own pushes
 * created is no peer's). A marker this cache never synced, a peer that moved the marker back (a rollback, say after
 * deleting bad versions), a marker moved back here, a marker naming a
 * version the index does not list, one naming the same or a lower version
 * than the datastore's, or one that names no version number: a conflict as
 * before.
 *
 * A peer that deleted the marker (and with it, say, the whole data name) is
 * no newer marker to keep: where this cache synced the marker, moved it
 * forward, and this very push publishes every file of the version it names
 * (a run after the deletion wrote a new version), the marker is created
 * again with that version, as a create, so that readers find the version
 * just published, and a `marker_recreated` warning says so; the deletion of
 * the older versions stands. Otherwise a conflict as before.
 *
 * @module
 */
import type { WriteContext } from "../sync/context.ts";
import type { GetResult } from "../sync/ports.ts";
import { writeOverCommitted } from "./own_writes.ts";
import {
  markerNumber,
  markerNumberOfHash,
  movedFurther,
  namesHighestListed,
} from "../sync/marker_numbers.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { isInternalPath } from "../sync/paths.ts";
import { shellWord } from "../sync/shell_word.ts";
import { readWriterId } from "../sync/transfer/writer_id.ts";

/** Why a marker that lost the race to another writer's was left dirty. */
export const MARKER_RACE_REASON =
  "a latest marker naming a newer version than the datastore's: another writer replaced the datastore's marker while this push wrote over it; the marker stays dirty and the next push writes it again over the newer one";

/**
 * True when the write is a `latest` marker's that may be written over
 * `remote` (the datastore's committed marker): both moved forward from the
 * version the marker was synced at, this one further, to a version the
 * index lists (see the module).
 */
export async function namesNewerVersion(
  ctx: WriteContext,
  remote: GetResult | null,
): Promise<boolean> {
  if (ctx.entry.class !== "latest-marker" || !remote || !(ctx.body instanceof Uint8Array)) {
    return false;
  }
  const mine = markerNumber(ctx.body);
  const theirs = markerNumber(remote.body);
  if (mine === undefined || theirs === undefined || mine <= theirs) return false;
  // Both forward from the base. With none (a marker this cache never
  // synced), whether the peer's moved back is not known: a conflict.
  const synced = ctx.entry.syncedHash;
  if (synced === undefined) return false;
  if (!movedFurther(await markerNumberOfHash(synced, mine), theirs, mine)) return false;
  const push = ctx.push;
  const dirOf = (n: number) => `${ctx.key.slice(0, ctx.key.lastIndexOf("/"))}/${n}/`;
  const index = await readIndex(
    push.store,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  );
  const listed = Object.keys(index?.entries ?? {});
  const publishing = (n: number) => publishes(ctx, (p) => p.startsWith(dirOf(n)));
  // This cache's own versions: new ones this push publishes (none of their
  // files listed yet), or ones an earlier push of it created (every listed
  // file its upload, synced so). A listed version this push publishes
  // again, the same bytes, is the peer's too (a deterministic run's).
  const writer = await readWriterId(push.cache);
  const own = (n: number) => {
    const files = listed.filter((p) => p.startsWith(dirOf(n)));
    if (files.length === 0) return publishing(n);
    return writer !== null && files.every((p) => push.state.synced(p)?.own === writer);
  };
  // The peer's marker names the highest version the index lists, this
  // cache's own left out: one moved back from a version still listed (a
  // rollback) is not a marker moved forward.
  if (!namesHighestListed(ctx.key, listed, theirs, own)) return false;
  // The version it names is published by this push (its files uploaded
  // before this commit step), or listed by the datastore's index.
  return publishing(mine) || listed.some((p) => p.startsWith(dirOf(mine)));
}

/**
 * True when the write is a `latest` marker's that may be created again over
 * a peer's committed deletion of it: synced here, moved forward from that
 * base, to a version this push publishes (see the module).
 */
export async function publishesOverDeletion(ctx: WriteContext): Promise<boolean> {
  if (ctx.entry.class !== "latest-marker" || !(ctx.body instanceof Uint8Array)) return false;
  const mine = markerNumber(ctx.body);
  const synced = ctx.entry.syncedHash;
  if (mine === undefined || synced === undefined) return false;
  const base = await markerNumberOfHash(synced, mine);
  if (base === undefined || mine <= base) return false;
  // Every file of the version here is published by this very push: one
  // pushed before may have gone with the peer's deletion of the data name,
  // and the marker would then name a version only partly there.
  const dir = `${ctx.key.slice(0, ctx.key.lastIndexOf("/"))}/${mine}`;
  const push = ctx.push;
  const files = (await push.cache.listFiles(dir).catch(() => [] as string[]))
    .filter((f) => !isInternalPath(f, push.config.classifierRules));
  return files.length > 0 && files.every((f) => publishes(ctx, (p) => p === f));
}

/**
 * True when this push publishes a path `match` takes: a put of its plan, or
 * an upload its preparation made and did not withdraw (the commit of a
 * prepared push writes the marker after them, before any index names them).
 */
function publishes(ctx: WriteContext, match: (path: string) => boolean): boolean {
  const push = ctx.push;
  return push.plan.some((e) => e.action === "put" && match(e.path)) ||
    push.uploaded.some((u) => match(u.path) && !push.withdrawn.has(u.path));
}

/** Why a marker another writer deleted was created again (the `marker_recreated` warning). */
export const MARKER_RECREATED = "marker_recreated";

/**
 * Creates the marker again over a peer's committed deletion of it (a
 * create: one winner), and says so: the peer's user may have meant the
 * data name to stay deleted.
 */
export async function recreateMarker(ctx: WriteContext, gate: string): Promise<void> {
  await writeOverCommitted(ctx, null, gate, {
    written:
      "names the version this push publishes, created again over another writer's deletion of the marker",
    lost: "a marker, created meanwhile by another writer",
    reason:
      "a latest marker naming the version this push publishes: another writer created the marker while this push created it again; the marker stays dirty and the next push looks again",
  });
  if (ctx.outcome !== "written") return;
  const dir = ctx.key.slice(0, ctx.key.lastIndexOf("/"));
  ctx.push.events.emit("warning", {
    code: MARKER_RECREATED,
    message:
      `${ctx.key} was deleted on the datastore by another writer (with ${dir}'s older versions, it may be), and this push published version ${
        markerNumber(ctx.body as Uint8Array)
      } of ${dir}: the marker was created again naming it, so that readers find it; the deletion of the older versions stands. If ${dir} was meant to stay deleted, delete it here too and push (\`sluice push ${
        shellWord(dir)
      }\`).`,
    path: ctx.key,
  });
}

/**
 * Writes the marker over `remote`, the committed marker the datastore holds,
 * with a compare-and-swap on its version; the write's mode is then that
 * version, so the index commit checks against it. Refused (another writer
 * got there first), the entry is left out and kept dirty, with no conflict;
 * `gate` names the caller in the notes.
 *
 * @example
 * ```ts
 * import { namesNewerVersion, rebaseMarker } from "./marker_rebase.ts";
 * import type { WriteContext } from "../sync/context.ts";
 * import type { GetResult } from "../sync/ports.ts";
 * async function _example(ctx: WriteContext, remote: GetResult) {
 *   if (await namesNewerVersion(ctx, remote)) await rebaseMarker(ctx, remote, "config-cas-writer");
 * }
 * ```
 */
export async function rebaseMarker(
  ctx: WriteContext,
  remote: GetResult,
  gate: string,
): Promise<void> {
  await writeOverCommitted(ctx, remote.version, gate, {
    written:
      `names a newer version than the datastore's marker (version ${remote.version}), written over it`,
    lost: "a marker, replaced meanwhile by another writer",
    reason: MARKER_RACE_REASON,
  });
}
