/**
 * A move inserted into a generated history from a generator of its own:
 * the republished move (`moves_republished.ts`) with its take-back cut off
 * before its delete, by a brief outage, so that the clone's next push
 * finishes that deletion; the same bytes are then published again, their
 * entry dropped by an old client, and edited by a peer (I37).
 *
 * @module
 */
import type { ClientKind, Op } from "./history_ops.ts";
import { insertRepublished } from "./moves_republished.ts";
import type { Rng } from "./prng.ts";

/**
 * Inserts, in a share of the histories {@link insertRepublished} takes, its
 * block with a brief outage (`blip` at `delete`) armed on the third clone
 * just before it deletes its file and pushes: the take-back notes the
 * version it withdraws and takes the entry out, then its delete of the
 * object fails, and the push stops there. That clone's next push (of its
 * other file's edit, in the block) finishes the deletion; the rest of the
 * block follows as it is. From a generator of its own, with ids after
 * every other operation's.
 */
export function insertCutTakeBack(
  ops: Op[],
  kinds: readonly ClientKind[],
  etag: boolean,
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const last = Math.max(...ops.map((o) => o.id));
  insertRepublished(ops, kinds, etag, rng, 1);
  // The block's first deletion: the third clone's take-back of its file.
  const at = ops.findIndex((o) => o.id > last && o.kind === "delete");
  if (at < 0) return;
  const takeBack = ops[at] as Extract<Op, { kind: "delete" }>;
  const id = Math.max(...ops.map((o) => o.id)) + 1;
  ops.splice(at, 0, { id, kind: "blip", clone: takeBack.clone, call: "delete" });
}
