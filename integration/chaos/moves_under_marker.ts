/**
 * A move inserted into a generated history with old clients from a
 * generator of its own: a committed data version whose index entries an old
 * client's pull dropped, deleted by a clone's user while the `latest`
 * marker there still names it (I36 looks at what that push deletes).
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { DATA_NAMES, MODELS, type Op, SHARED_FILES } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";

/**
 * Inserts, in a share of v1 histories with old clients and two clones or
 * more, at their start (after another tool's first writes): a clone runs a
 * model's data (a version committed, its `latest` marker with it), then
 * pushes a shared file and, armed to crash at `commit`, deletes it and
 * pushes: its deletion of the object lands, its commit never comes (the
 * entry names a missing object, which an old client's pull drops, writing
 * back the index it read). Past the TTL of the global lock its dead
 * process left, an old client's pull on some clone's machine reads the index and stops before
 * writing back what it read (`window`) until a peer's next command ends
 * or attempts the global lock; meanwhile the clone runs that data again (a
 * version committed, the marker moved to it), and the peer syncs, fetching
 * it. The old client's write-back drops the second version's entries, its
 * objects kept (its writer's next pull names them again). In half of them
 * the peer's user, in the others the clone's, then removes that
 * version's files here, the marker here still naming it, marks them and
 * pushes them by name: Sluice never deletes a version its marker names, so
 * the push holds the deletion and the store keeps the version. Syncs of
 * both clones follow. From a generator of its own, with ids after every
 * other operation's, like {@link insertStalls}.
 */
export function insertUnderMarker(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
): void {
  if (ops.length === 0 || clones < 2 || !rng.chance(share)) return;
  let id = Math.max(...ops.map((o) => o.id)) + 1;
  const clone = rng.int(clones);
  const peer = (clone + rng.range(1, clones - 1)) % clones;
  const deleter = rng.chance(0.5) ? peer : clone;
  const machine = rng.int(clones);
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const tick = (lo: number, hi: number): Op => ({
    id: id++,
    kind: "tick",
    n: rng.range(lo, hi),
    pick: rng.int(2 ** 31),
  });
  // An odd id: a core-driven clone's sync with an even one, beside old
  // clients, is a token command of the tool's, which pulls nothing.
  const sync = (c: number): Op => {
    if (id % 2 === 0) id++;
    return { id: id++, kind: "sync", clone: c };
  };
  const run = (): Extract<Op, { kind: "run" }> => ({
    id: id++,
    kind: "run",
    clone,
    model,
    data,
    workMs: 0,
  });
  const file = rng.int(SHARED_FILES.length);
  const block: Op[] = [
    sync(clone),
    tick(20, 40),
    run(),
    tick(20, 40),
    // An entry naming a missing object, for the old client's pull to drop
    // (it writes the index back only then): the clone's deletion of a file
    // it pushed lands, its commit never comes.
    { id: id++, kind: "edit", clone, file, how: "push" },
    tick(20, 40),
    { id: id++, kind: "crash", clone, at: "commit", queued: true },
    { id: id++, kind: "delete", clone, file, how: "push" },
    tick(20, 40),
    // Past the TTL of the global lock the dead process held.
    { id: id++, kind: "wait", ms: 31_000 },
    tick(5, 20),
  ];
  // Aimed: the scheduler goes on until the old client read the index.
  block.push({ id: id++, kind: "oldpull", clone: machine, window: peer });
  const second = run();
  block.push(second, tick(30, 60), sync(peer), tick(30, 60));
  block.push(
    {
      id: id++,
      kind: "delete",
      clone: deleter,
      file: 0,
      how: "push",
      run: second.id,
      committed: true,
    },
    tick(30, 60),
    sync(clone),
    tick(30, 60),
    sync(peer),
    tick(30, 60),
  );
  insertAtStart(ops, block);
}
