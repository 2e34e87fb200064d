/**
 * A move inserted into a generated history from a generator of its own, on
 * a v2 bucket: a same-output peer's commit of a stopped run's uploads cut
 * off after its shard write, before the meta update that lists the shard,
 * then the stopped run's erasure, refused, and a later commit into that
 * shard.
 *
 * @module
 */
import { isUnversioned } from "../../sync/transfer/bucket_layout.ts";
import type { CommandEnv } from "./commands.ts";
import type { Rng } from "./prng.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history_ops.ts";
import { insertAtStart } from "./moves_bucket.ts";
import { apiPair } from "./moves_start.ts";

/**
 * Inserts, in a share of v2 histories with two clones or more, at their
 * start (after another tool's first writes, so that the model's shard is
 * new: no meta lists it): both clones sync; the clone's deterministic run
 * (see the `run` {@link Op}'s `same`) stops once its version's uploads
 * landed, before its commit (a `stall` at `commit`), while a breakglass
 * takes its lock; the peer, armed to crash as its next index write lands
 * (`answer`: a shard, before the meta update that lists it), runs the same
 * method: its creates meet the stopped run's uploads, the same bytes, and
 * its commit writes the shard naming them, then dies. The stopped run goes
 * on, refused (`model_lock_lost`): its erasure must keep those uploads, an
 * unlisted shard naming them. The clone then runs another data name of the
 * same model, whose commit writes that shard and lists it, and syncs
 * (the clone is driven through the library's API), marked `listed`: the index names
 * no file of the stopped run's data name whose object the store does not
 * hold (I7, there and then; see {@link listedHeld}), as the peer's next
 * push, which uploads its files again, would hide that. From a generator
 * of its own, with ids after every other operation's, like
 * {@link insertStalls}.
 */
export function insertShardCut(
  ops: Op[],
  kinds: readonly ClientKind[],
  v2: boolean,
  rng: Rng,
  share: number,
): void {
  // Its checked sync is a plain pull, then push: a clone driven through the API.
  const pair = apiPair(ops, kinds, rng, share, v2);
  if (!pair) return;
  const { api: clone, other: peer, id, tick } = pair;
  const model = rng.int(MODELS.length);
  const data = rng.int(DATA_NAMES.length);
  const other = (data + rng.range(1, DATA_NAMES.length - 1)) % DATA_NAMES.length;
  const stopped = id();
  const block: Op[] = [
    { id: id(), kind: "sync", clone },
    { id: id(), kind: "sync", clone: peer },
    tick(20, 40),
    { id: stopped, kind: "run", clone, model, data, workMs: 0, same: true },
    {
      id: id(),
      kind: "stall",
      clone,
      on: true,
      at: "commit",
      run: stopped,
      pick: rng.int(2 ** 31),
    },
    { id: id(), kind: "breakglass", model },
    tick(20, 40),
    { id: id(), kind: "crash", clone: peer, at: "answer", queued: true },
    { id: id(), kind: "run", clone: peer, model, data, workMs: 0, same: true },
    tick(60, 120),
    tick(60, 120),
    { id: id(), kind: "stall", clone, on: false },
    tick(40, 80),
    { id: id(), kind: "run", clone, model, data: other, workMs: 0 },
    tick(40, 80),
    { id: id(), kind: "sync", clone, listed: { model, data } },
    tick(20, 40),
  ];
  insertAtStart(ops, block);
}

/**
 * I7 after a `sync` marked `listed` (see {@link insertShardCut}): every
 * entry the remote index names now under `data/<model>/<data>/` names an
 * object the store holds. Not looked at without the environment's reads.
 */
export async function listedHeld(
  env: CommandEnv,
  listed: { readonly model: number; readonly data: number },
): Promise<void> {
  if (!env.indexEntries || !env.heldVersion) return;
  const dir = `data/${MODELS[listed.model]}/${DATA_NAMES[listed.data]}/`;
  env.stats.listedChecks++;
  for (const [path, e] of Object.entries(await env.indexEntries())) {
    if (!path.startsWith(dir) || isUnversioned(e)) continue;
    if ((await env.heldVersion(path)) !== null) continue;
    env.truth.violate({
      invariant: "I7",
      message:
        `the index names version ${e.v} of ${path}, which the store does not hold: a same-output peer's commit of a refused run's upload, cut off after its shard write, was listed by a later commit into that shard after the run's erasure deleted the upload`,
      afterOp: env.opId(),
    });
  }
}
