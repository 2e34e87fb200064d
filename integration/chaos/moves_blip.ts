/**
 * Brief outages (`blip` moves), inserted into a generated history from a
 * generator of their own: one write or deletion of a push's transfer fails
 * as unreachable, the store answering before and after, so that the push
 * stops its further writes and deletions there and its commit meets the
 * store back. Most come with what such a stop leaves untried: files of the
 * clone's replaced here by directories of their names, each marked by its
 * name (two marked directories, two deletions clearing the way for a new
 * shape), and a push of another file that meets the blip.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import type { Op } from "./history_ops.ts";
import { afterForeign, RESHAPED_FILES } from "./moves_bucket.ts";

/**
 * Inserts, in a share of histories, one or two `blip` moves (see the `blip`
 * {@link Op}), each armed on a clone at a point drawn at random where no
 * outage is on (armed when the clone's queue gets to it). In most, the
 * clone first edits two `notes/` files, replaces each here by a directory
 * of its name and marks it by that name (`reshape` with `mark`), and after
 * the blip pushes a config edit. With `delete`, the edits were pushed (the
 * files synced): the first deletion clearing the way for a directory fails
 * and the other is never tried. With `put`, they were made by hand (the
 * directories are new, their marks cover writes alone): the config upload
 * fails first and the directories' files are never tried.
 * From a generator of its own, with ids after every other operation's: the
 * other operations of a seed stay as they were.
 */
export function insertBlips(ops: Op[], clones: number, rng: Rng, share: number): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  for (let n = rng.range(1, 2); n > 0; n--) {
    const clone = rng.int(clones);
    const call = rng.pick(["put", "delete"] as const);
    // A point where the store answers, with no outage in the next few
    // operations either (the blip is brief), after another tool's first
    // writes, which come before any index.
    const clear: number[] = [];
    let down = false;
    const after = afterForeign(ops);
    for (let i = 0; i <= ops.length; i++) {
      const quiet = !ops.slice(i, i + 3).some((o) => o.kind === "outage");
      if (!down && quiet && i >= after) clear.push(i);
      const op = ops[i];
      if (op?.kind === "outage") down = op.on;
    }
    const at = clear.length > 0 ? rng.pick(clear) : ops.length;
    // Scheduling decisions for the clone's commands to run in.
    const tick = (): Op => ({
      id: id++,
      kind: "tick",
      n: rng.range(30, 60),
      pick: rng.int(2 ** 31),
    });
    const moves: Op[] = [];
    if (rng.chance(0.75)) {
      const first = rng.int(RESHAPED_FILES.length);
      const files = [
        RESHAPED_FILES[first],
        RESHAPED_FILES[(first + rng.range(1, RESHAPED_FILES.length - 1)) % RESHAPED_FILES.length],
      ];
      // Synced first for a deletion's blip (two deletions clearing the way);
      // for a write's, new here (two marked directories of writes alone).
      const how = call === "delete" ? "push" : "hand";
      for (const file of files) moves.push({ id: id++, kind: "edit", clone, file, how });
      moves.push(tick());
      for (const file of files) moves.push({ id: id++, kind: "reshape", clone, file, how: "mark" });
      moves.push({ id: id++, kind: "blip", clone, call });
      moves.push({ id: id++, kind: "config", clone, file: rng.int(3) });
    } else {
      moves.push({ id: id++, kind: "blip", clone, call });
    }
    moves.push(tick());
    ops.splice(at, 0, ...moves);
  }
}
