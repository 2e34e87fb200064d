/**
 * A move inserted into a generated history from a generator of its own, on
 * a store whose deletes check the version, then delete: a peer that pulls
 * inside a take-back's checked delete (between its check and its delete),
 * then edits the file and pushes there.
 *
 * @module
 */
import type { SyncService } from "../../sync/service/service.ts";
import type { CommandEnv } from "./commands.ts";
import { type ClientKind, type Op, SHARED_FILES } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiPair } from "./moves_start.ts";
import type { Rng } from "./prng.ts";

/**
 * Inserts, in a share of histories without old clients whose store
 * deletes by a check, then a delete (`checkedDeletes`; the caller tells
 * both as `checked`), with two clones or more, one of them driven
 * through the library's API (the peer), at their start (after another
 * tool's first writes, so that the file is new to every clone): the clone,
 * armed to crash at `answer`, pushes a shared file (its commit lands, its
 * answer lost), and the peer syncs, fetching it. The clone deletes the file
 * and pushes, armed to stop after that push's index write at its next
 * delete of an object (its take-back of its own upload: the entry out
 * first, then the object; on such a store the stop comes once the delete
 * checked the version, before it deletes). While it is stopped the peer
 * syncs, editing the file between its pull (which finds the entry gone, the
 * object there, and keeps it to name again) and its push (a `sync` with
 * `edit`); then the clone goes on, and the peer syncs again, marked
 * `named`: the delete must not have taken the peer's edit while its push
 * reported it published, the index naming it (I7 there and then, see
 * {@link namedHeld}; the checker otherwise takes a delete that met a write
 * landed after its check for another tool's deletion, which I7 spares).
 * From a generator of its own, with ids after every other operation's,
 * like {@link insertStalls}.
 */
export function insertCheckedWindow(
  ops: Op[],
  kinds: readonly ClientKind[],
  checked: boolean,
  rng: Rng,
  share: number,
): void {
  // The peer's sync edits between its pull and its push: a plain API sync.
  const pair = apiPair(ops, kinds, rng, share, checked);
  if (!pair) return;
  const { api: peer, other: clone, id, tick } = pair;
  const file = rng.int(SHARED_FILES.length);
  insertAtStart(ops, [
    { id: id(), kind: "crash", clone, at: "answer", queued: true },
    { id: id(), kind: "edit", clone, file, how: "push" },
    tick(20, 40),
    { id: id(), kind: "sync", clone: peer },
    tick(20, 40),
    { id: id(), kind: "stall", clone, on: true, at: "withdraw" },
    { id: id(), kind: "delete", clone, file, how: "push" },
    tick(20, 40),
    { id: id(), kind: "sync", clone: peer, edit: file },
    tick(20, 40),
    { id: id(), kind: "stall", clone, on: false },
    tick(20, 40),
    { id: id(), kind: "sync", clone: peer, named: file },
    tick(20, 40),
  ]);
}

/**
 * The edit of a `sync` with `edit` (see {@link insertCheckedWindow}),
 * between its pull and its push: the user of clone `clone` writes the
 * shared file `file` (unique bytes naming the operation `op`, or those
 * `again` names: the bytes another clone's edit operation wrote there) and
 * marks it, recorded for I6 as a pushed edit is. Nothing where a directory
 * is there, nor, without `again`, where no file is (the pull brought none).
 */
export async function editAfterPull(
  env: CommandEnv,
  svc: SyncService,
  clone: number,
  op: number,
  file: number,
  again?: { readonly op: number; readonly clone: number },
): Promise<void> {
  const path = SHARED_FILES[file];
  const st = await Deno.lstat(`${svc.cacheDir}/${path}`).catch(() => null);
  // A new file only with `again` (the bytes published again where none is here).
  if (st ? !st.isFile : !again) return;
  const [by, of] = again ? [again.op, again.clone] : [op, clone];
  // As an edit operation's bytes (`editBytes` in commands.ts).
  const bytes = new TextEncoder().encode(`op ${by}: ${path} edited by c${of}; some settings\n`);
  env.stats.edits++;
  env.stats.editsAfterPull++;
  await env.changes.record({ op, clone, path, how: "push" }, bytes);
  await svc.cache.write(path, bytes);
  await svc.markDirty({ relPath: path });
}

/**
 * I7 at the start of a `sync` marked `named` (see
 * {@link insertCheckedWindow}): the remote index names the shared file
 * `file` only with a version the store holds. Not looked at without the
 * environment's reads.
 */
export async function namedHeld(env: CommandEnv, file: number): Promise<void> {
  if (!env.indexEntries || !env.heldVersion) return;
  const path = SHARED_FILES[file];
  const e = (await env.indexEntries())[path];
  env.stats.namedChecks++;
  if (!e || (await env.heldVersion(path)) === e.v) return;
  env.truth.violate({
    invariant: "I7",
    message:
      `the index names version ${e.v} of ${path}, which the store does not hold: a take-back's delete, its version checked, took a peer's edit committed in its window, which that peer's push reported published`,
    afterOp: env.opId(),
  });
}
