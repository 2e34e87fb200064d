/**
 * A move inserted into a generated v1 history with old clients from a
 * generator of its own: a clone's push stopped past its delete of a
 * `latest` marker's object, before its next store call, while an old
 * client's pull on another clone's machine looks at that marker. A
 * put-back that deletes this cache's upload and then creates the committed
 * marker leaves the path empty there: the old client's pull drops the
 * entry from the index it writes back, and the committed marker is lost.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import type { Op } from "./history_ops.ts";

/** Whether `op` is a clone's command that may push (and so put a marker back). */
function pushes(op: Op): op is Extract<Op, { kind: "run" | "sync" | "delete" }> {
  return op.kind === "run" || op.kind === "sync" ||
    (op.kind === "delete" && op.how === "push");
}

/**
 * Inserts, in a share of v1 histories with old clients and two clones or
 * more (the caller's condition, `oldV1`), right before a clone's command
 * that may push (most often one that follows a crash of that clone's: its
 * push takes back what the crashed one left), the clone armed to stop past
 * its next delete of a `latest` marker's object; then, right before the
 * clone's next operation (or at the end), an old client's pull on another
 * clone's machine, a few decisions, and the clone goes on. From a
 * generator of its own, with ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertMarkerGap(
  ops: Op[],
  clones: number,
  oldV1: boolean,
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || !oldV1 || clones < 2 || !rng.chance(share)) return;
  const all = ops.flatMap((o, i) => pushes(o) ? [i] : []);
  if (all.length === 0) return;
  const crashed = new Set<number>();
  const after: number[] = [];
  ops.forEach((o, i) => {
    if (o.kind === "crash") crashed.add(o.clone);
    else if (pushes(o) && crashed.has(o.clone)) after.push(i);
  });
  const at = rng.pick(after.length > 0 && rng.chance(0.75) ? after : all);
  const clone = (ops[at] as Extract<Op, { kind: "run" | "sync" | "delete" }>).clone;
  const machine = (clone + rng.range(1, clones - 1)) % clones;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const arm: Op = { id: id++, kind: "stall", clone, on: true, at: "marker" };
  const tail: Op[] = [
    { id: id++, kind: "oldpull", clone: machine },
    { id: id++, kind: "tick", n: rng.range(20, 40), pick: rng.int(2 ** 31) },
    { id: id++, kind: "stall", clone, on: false },
  ];
  const next = ops.findIndex((o, i) => i > at && "clone" in o && o.clone === clone);
  ops.splice(next < 0 ? ops.length : next, 0, ...tail);
  ops.splice(at, 0, arm);
}
