/**
 * What a compare-and-swap write refused by another writer's change comes to
 * (the config-cas-writer's outcomes): a recorded conflict, when a committed
 * change is in the way, or a wait, when another writer's uncommitted object
 * holds the path. Either way nothing is overwritten and the local copy stays
 * dirty.
 *
 * @module
 */
import type { WriteContext } from "../sync/context.ts";
import type { GetResult, ObjectInfo } from "../sync/ports.ts";
import { ADOPT_HINT, resolveHint } from "../sync/service/conflicts.ts";
import { UNCOMMITTED_HOLDS } from "../sync/service/push_result.ts";
import { sha256Hex } from "../sync/hash.ts";
import { shellWord } from "../sync/shell_word.ts";

/** Warning code emitted when a config file was not pushed because a peer changed it. */
export const CONFIG_CHANGED_REMOTELY = "config_changed_remotely";

/** Warning code emitted when a marker, index file or other state was not pushed because a peer changed it. */
export const CHANGED_REMOTELY = "changed_remotely";

/** Warning code emitted when a file was not pushed because another writer's uncommitted object holds its key. */
export const PUSH_WAITING_UNCOMMITTED = "push_waiting_uncommitted";

/**
 * Records the write as a conflict with `remote` (null: the path was deleted
 * there), keeps the local copy dirty, and says so (`gate` names the caller
 * in the notes).
 */
export async function recordConflict(
  ctx: WriteContext,
  remote: GetResult | null,
  gate: string,
): Promise<void> {
  const push = ctx.push;
  ctx.entry.action = "skip";
  ctx.entry.keepDirty = true;
  // The copy here the very one synced, deleted there: no change of this
  // cache's met the deletion (a path named again, or marked dirty as it was).
  const synced = push.state.synced(ctx.key);
  const unchanged = !remote && synced !== undefined && synced.hash === ctx.hash;
  // True whether or not this cache ever synced the path (it may have, and
  // deleted it since): its copy is not based on the datastore's version.
  ctx.entry.reason = remote
    ? "changed remotely: this cache's copy is not based on the datastore's version"
    : unchanged
    ? UNCHANGED_DELETED_REASON
    : "deleted remotely: a peer deleted it, a change this cache's copy is not based on";
  ctx.entry.conflict = {
    theirs: remote
      ? { version: remote.version, hash: await sha256Hex(remote.body), size: remote.size }
      : null,
  };
  // A file found by a walk is not in the dirty set: mark it so it stays dirty after this push.
  if (!push.dryRun) await push.state.markDirty(ctx.key);
  push.note(gate, `${ctx.key}: conflict, changed remotely`, ctx.entry);
  push.events.emit("warning", {
    code: ctx.entry.class === "config" ? CONFIG_CHANGED_REMOTELY : CHANGED_REMOTELY,
    message: unchanged
      ? unchangedDeletedMessage(ctx.key, synced.republish === true)
      : `${ctx.key} was not pushed: another checkout ${
        remote ? `wrote it (version ${remote.version})` : "deleted it"
      } on the datastore, a change this cache's copy is not based on, so the local copy would have overwritten that change. Nothing was overwritten; the local copy was kept and the conflict recorded. Run \`sluice status\` to see both versions, then \`${
        resolveHint(ctx.key)
      }\`.`,
    path: ctx.key,
  });
}

/** Why a copy unchanged since its sync, deleted on the datastore, was not published again. */
export const UNCHANGED_DELETED_REASON =
  "deleted remotely: deleted on the datastore (by another checkout, or by its writer taking back its own write) while the copy here is unchanged since this cache synced it; not published again";

/**
 * What a push tells of a copy unchanged since its sync (`republish`: one a
 * pull kept to name again, its entry found gone while the store held it)
 * that the datastore deleted: no edit of the user's met the deletion, and
 * either resolution is theirs to choose.
 */
function unchangedDeletedMessage(path: string, republish: boolean): string {
  const kept = republish
    ? ": this cache's last pull found its index entry gone while the store still held it, took that for an entry an old client dropped and kept it to name again, but the entry went with that deletion"
    : "";
  return `${path} was not pushed: it was deleted on the datastore (by another checkout, or by its writer taking back its own write whose commit answer it never got), and the copy here is unchanged since this cache synced it${kept}. Publishing it would have undone that deletion, so nothing was written; the local copy was kept and the conflict recorded. \`sluice resolve ${
    shellWord(path)
  } --theirs\` accepts the deletion (the copy here is set aside); \`sluice resolve ${
    shellWord(path)
  } --mine\` publishes it again.`;
}

/**
 * Leaves the write for a later push: another writer's uncommitted object
 * holds its path (see the gate).
 */
export async function waitFor(
  ctx: WriteContext,
  remote: ObjectInfo,
  gate: string,
  notAdopted?: string,
): Promise<void> {
  const push = ctx.push;
  ctx.entry.action = "skip";
  ctx.entry.keepDirty = true;
  ctx.entry.reason = UNCOMMITTED_HOLDS;
  if (!push.dryRun) await push.state.markDirty(ctx.key);
  push.note(gate, `${ctx.key}: another writer's uncommitted write`, ctx.entry);
  push.events.emit("warning", {
    code: PUSH_WAITING_UNCOMMITTED,
    message:
      `${ctx.key} was not pushed: the datastore holds another writer's object for it (version ${remote.version}) that its index does not list, so that writer's push is in flight or stopped before its index update. Nothing was overwritten; the local copy was kept and stays dirty. Run \`sluice push\` again once that push completes (a stopped push completes when its cache pushes again); ${
        notAdopted ? `it was not adopted: ${notAdopted}` : ADOPT_HINT(ctx.key, ctx.entry.class)
      }.`,
    path: ctx.key,
  });
}
