/**
 * A move inserted into a generated history from a generator of its own: a
 * clone's run loses its data version, and the one a run of its cut off at
 * its commit uploaded, to another tool, so that the marker's take-back puts
 * the committed bytes back over the cut-off run's marker upload, while a
 * brief outage strikes that take-back: its delete of the upload (`delete`),
 * or its create of the committed bytes, which lands with its answer lost
 * (`put`). I7 and I8 look at what the index names after the final sync.
 *
 * @module
 */
import type { Rng } from "./prng.ts";
import { DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { blockIds, cutOffRun, lostVersions } from "./moves_start.ts";

/**
 * Inserts, in a share of histories, at their start (after another tool's
 * first writes): a clone syncs and runs a model's data (a version
 * committed, its `latest` marker with it); its next run of that data dies
 * between its uploads (the version, and the marker over the committed one)
 * and its commit's index update; past the TTL of the locks the dead
 * process held, a brief outage is armed on the clone, aimed at a `latest`
 * marker (`call`: its next deletion of one; or its next create of one, the
 * first attempt landing before its answer is lost), and the clone runs
 * that data again, working 30 s. While it works, its version written here
 * and not flushed, another tool publishes with its index entries a version
 * at the number the cut-off run uploaded and one at this run's (`lockless`,
 * `below` first): the run loses its version, the marker's reset goes back
 * to the committed one, and its take-back of the cut-off run's upload (a
 * delete, then a create of the committed bytes, named in the index) meets
 * the outage. The clone then syncs twice. From a generator of its own,
 * with ids after every other operation's, like {@link insertStalls}.
 */
export function insertTakeBackFault(
  ops: Op[],
  clones: number,
  rng: Rng,
  share: number,
  call: "put" | "delete",
): void {
  if (ops.length === 0 || !rng.chance(share)) return;
  const ids = blockIds(ops, rng);
  const { id, tick } = ids;
  const clone = rng.int(clones);
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const target = { clone, model, data };
  insertAtStart(ops, [
    ...cutOffRun(ids, target),
    // Aimed: the take-back's delete of the upload, or its put-back's create.
    {
      id: id(),
      kind: "blip",
      clone,
      call,
      marker: true,
      ...(call === "put" ? { landed: true } : {}),
    },
    ...lostVersions(ids, rng, target),
    tick(60, 120),
    { id: id(), kind: "sync", clone },
    tick(30, 60),
    { id: id(), kind: "sync", clone },
    tick(30, 60),
  ]);
}
