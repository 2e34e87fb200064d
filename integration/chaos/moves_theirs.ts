/**
 * A move inserted into a generated history from a generator of its own: a
 * resolution `--theirs` of a clone's deletion kept as a conflict, at a path
 * whose datastore side a peer has made a directory since, which a pull here
 * brought.
 *
 * Two variants, each from a generator of its own: another clone's push of a
 * file of the directory's name, left out at its commit (`path_blocked`),
 * its upload standing on the datastore unnamed, right before the
 * resolution (`blocked`); and a file of the clone's own written under the
 * pulled directory and marked by the directory's name, right before the
 * resolution (`under`).
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import type { Op } from "./history_ops.ts";
import { RESHAPED_FILES } from "./moves_bucket.ts";

/**
 * Inserts, in a share of histories with two clones or more, at their start
 * (after another tool's first writes): a clone pushes a `notes/` file, a
 * peer pulls it, edits it and pushes; the clone deletes it and pushes it by
 * name, its deletion kept as an open conflict with the peer's edit (mine:
 * nothing); the peer replaces the file by a directory of its name holding a
 * new file and pushes; the clone syncs (its pull brings the directory) and
 * resolves its conflict with `--theirs` (the pick 0 to 3: theirs is not
 * copied into place by hand first, there being no file to copy). The
 * directory is the datastore's side: the resolution must keep it, and the
 * final sync must leave the peer's file on every clone (I8 and the final
 * comparison of each clone with the index). Ticks between the steps let
 * each command end before the next clone's begins. From a generator of its
 * own, with ids after every other operation's, like {@link insertStalls}.
 *
 * `blocked` (three clones or more): after the clone's sync, a third clone,
 * which has pulled nothing of it, writes a file at the path and pushes it:
 * its commit meets the peer's directory and leaves the file out
 * (`path_blocked`), its upload standing on the datastore, named by no
 * index. Theirs is still the directory, which the resolution must keep
 * (I33). `under`: after the clone's sync, its user writes a new file under
 * the pulled directory and marks the directory's name (an `under` edit);
 * the resolution keeps the directory, and that file must reach the
 * datastore by the final sync, or stay marked (I33's marked files).
 */
export function insertTheirsShape(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
  variant: "plain" | "blocked" | "under" = "plain",
): void {
  if (ops.length === 0 || clones < (variant === "blocked" ? 3 : 2) || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const peer = (clone + rng.range(1, clones - 1)) % clones;
  const file = rng.pick(RESHAPED_FILES);
  const tick = (): Op => ({ id: id++, kind: "tick", n: rng.range(30, 60), pick: rng.int(2 ** 31) });
  const block: Op[] = [
    { id: id++, kind: "edit", clone, file, how: "push" },
    tick(),
    { id: id++, kind: "sync", clone: peer },
    tick(),
    { id: id++, kind: "edit", clone: peer, file, how: "push" },
    tick(),
    { id: id++, kind: "delete", clone, file, how: "push" },
    tick(),
    { id: id++, kind: "reshape", clone: peer, file, how: "push" },
    tick(),
    { id: id++, kind: "sync", clone },
    tick(),
  ];
  if (variant === "blocked") {
    // A clone other than these two.
    const other = [...Array(clones).keys()].filter((c) => c !== clone && c !== peer);
    block.push({ id: id++, kind: "edit", clone: rng.pick(other), file, how: "push" }, tick());
  } else if (variant === "under") {
    block.push({ id: id++, kind: "edit", clone, file, how: "under" }, tick());
  }
  block.push({ id: id++, kind: "resolve", clone, pick: rng.int(4), how: "theirs" }, tick());
  const start = ops.findIndex((o) => o.kind !== "foreign");
  ops.splice(start < 0 ? ops.length : start, 0, ...block);
}
