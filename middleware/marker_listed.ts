/**
 * The two reads marker-after-version (`marker_after_version.ts`) and
 * version-under-marker share about a `latest` marker: the version directory
 * its bytes name, and whether the datastore's index lists that version once
 * the push's take-backs are made.
 *
 * @module
 */
import type { PushContext, WriteContext } from "../sync/context.ts";
import { readIndexAround } from "../sync/transfer/remote_index.ts";
import { pushWriterId } from "../sync/service/push_write.ts";
import { isOwnUncommitted } from "../sync/transfer/writer_id.ts";

/** The version directory a marker's bytes name, if they read as one. */
export function namedDir(marker: string, body: WriteContext["body"]): string | undefined {
  if (!(body instanceof Uint8Array) || body.length > 64) return undefined;
  const named = new TextDecoder().decode(body).trim();
  if (!/^[0-9]+$/.test(named)) return undefined;
  return `${marker.slice(0, marker.lastIndexOf("/"))}/${named}`;
}

/**
 * Whether the datastore's index lists a file under the version directory
 * `dir` that stays after `push` (one index read): `listed`; with
 * `deletions`, once the push's deletions are decided (at a marker's write),
 * a file whose deletion the push makes does not stay (its own deletion cut
 * off before the index update, the store holding nothing there, which
 * version-under-marker lets through: chaos seed 226400214); `taken-back`
 * when every file it lists there is this cache's own upload, named by the
 * index (its commit landed, its answer lost; or cut off before the marker's
 * shard), that this push takes back (a never-synced path it checks, absent
 * here: the version's files deleted here since, see `dropOwnStranded`), one
 * HEAD per such file, on that rare path alone; `none` otherwise. A marker
 * written naming a version so taken back would be named by this push's
 * commit and read by every clone, its version gone (the take-back comes
 * after the commit step's writes).
 */
export async function listedAfterPush(
  push: PushContext,
  dir: string,
  deletions = false,
): Promise<"listed" | "taken-back" | "none"> {
  const near = await readIndexAround(
    push.store,
    dir,
    push.config.retry,
    push.signal,
    push.config.concurrency,
  );
  const deleted = new Set(
    deletions
      ? push.plan.filter((e) => e.action === "delete" && e.path.startsWith(`${dir}/`)).map((e) =>
        e.path
      )
      : [],
  );
  const listed = Object.keys(near).filter((k) => k.startsWith(`${dir}/`) && !deleted.has(k));
  if (listed.length === 0) return "none";
  const back = takenBackBy(push, dir);
  if (listed.some((k) => !back.has(k))) return "listed";
  const writer = await pushWriterId(push);
  for (const k of listed) {
    const now = await push.store.head(k, { signal: push.signal });
    if (!now || now.version !== near[k].v || !isOwnUncommitted(now, undefined, writer)) {
      return "listed";
    }
  }
  return "taken-back";
}

/**
 * The paths under `dir` whose check this push makes as a take-back of this
 * cache's own upload (see `settleStrays`): never synced, nothing here,
 * recorded as written by this cache, no open conflict.
 */
function takenBackBy(push: PushContext, dir: string): Set<string> {
  const conflicts = new Set(push.state.conflicts?.list().map((c) => c.path) ?? []);
  return new Set(
    push.plan.filter((e) =>
      e.path.startsWith(`${dir}/`) && e.strandedCheck === true && e.action === "skip" &&
      e.syncedVersion === undefined && !e.heldHere && !conflicts.has(e.path) &&
      push.state.attempted?.(e.path) === true
    ).map((e) => e.path),
  );
}
