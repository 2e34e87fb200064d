/**
 * I36: a committed data version a clone's user deleted here while the
 * `latest` marker here names it (a `delete` with `run` and `committed`) is
 * not deleted from the store by that push: Sluice never deletes a version
 * its marker names (`middleware/version_under_marker.ts`), and where an old
 * client's index write from an earlier read dropped the version's entries
 * (its writer's next pull names them again), such a deletion would take a
 * committed version from every reader the marker points at. A deletion
 * here of the version the marker this clone synced names, beside a lost
 * run's (`syncedDelete`), is spared by I1 the same way.
 *
 * @module
 */
import type { SyncService } from "../../sync/service/service.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { type CommandEnv, NOTHING_TAKEN_IN, pushOf } from "./commands.ts";
import type { Op } from "./history.ts";
import { sameBytes } from "./invariants.ts";

/**
 * The user's deletion of a committed run's version here, marked by name and
 * pushed, while the marker here names it; nothing happens where the run was
 * not acknowledged, the marker here names another version, or this clone
 * holds none of the version's files with the run's bytes. I36 is checked as
 * the push returns (or fails).
 */
export async function underMarkerDelete(
  env: CommandEnv,
  op: Extract<Op, { kind: "delete" }>,
  svc: SyncService,
): Promise<void | typeof NOTHING_TAKEN_IN> {
  const rec = env.truth.runs.find((r) => r.op === op.run && r.outcome === "success");
  if (!rec || rec.files.length === 0) return NOTHING_TAKEN_IN;
  const dir = rec.files[0].path.slice(0, rec.files[0].path.lastIndexOf("/"));
  const n = dir.slice(dir.lastIndexOf("/") + 1);
  const marker = `${dir.slice(0, dir.lastIndexOf("/"))}/latest`;
  const markerHere = async () =>
    new TextDecoder().decode(
      await Deno.readFile(`${svc.cacheDir}/${marker}`).catch(() => null) ?? new Uint8Array(),
    ).trim();
  if (await markerHere() !== n) return NOTHING_TAKEN_IN;
  const gone: { path: string; bytes: Uint8Array; held: boolean }[] = [];
  for (const f of rec.files) {
    const here = await Deno.readFile(`${svc.cacheDir}/${f.path}`).catch(() => null);
    if (!here || !sameBytes(here, f.bytes)) continue;
    const hash = svc.state.synced(f.path)?.hash ?? await sha256Hex(here);
    await env.changes.record({ op: op.id, clone: op.clone, path: f.path, how: op.how }, null, hash);
    env.truth.userDeletedCommitted.add(f.path);
    const held = env.storeRead ? sameBytes(await env.storeRead(f.path), f.bytes) : false;
    gone.push({ path: f.path, bytes: f.bytes, held });
    await Deno.remove(`${svc.cacheDir}/${f.path}`);
  }
  if (gone.length === 0) return NOTHING_TAKEN_IN;
  env.stats.deletes++;
  env.stats.underMarkerDeletes++;
  // Named by no index as deleted here, or right after the push (an old
  // client's write-back may land while the push waits for the global lock).
  const raw = gone.find((g) => g.path.endsWith("/raw"));
  const unnamed = async () => raw && env.indexNames && !await env.indexNames(raw.path);
  let counted = false;
  if (await unnamed()) {
    env.stats.underMarkerUnnamed++;
    counted = true;
  }
  await svc.markDirty({ relPaths: gone.map((g) => g.path) });
  try {
    await pushOf(env, svc);
  } finally {
    if (!counted && await unnamed()) env.stats.underMarkerUnnamed++;
    // The marker here names the version still (the user changed it not).
    if (env.storeRead && await markerHere() === n) {
      for (const g of gone) {
        if (!g.held || sameBytes(await env.storeRead(g.path), g.bytes)) continue;
        env.truth.violate({
          invariant: "I36",
          message:
            `c${op.clone}'s push of its user's deletion of ${g.path} (run #${rec.op}'s committed version ${n}) deleted it from the store while ${marker} here names that version: readers the marker points at lose a committed version`,
          afterOp: env.opId(),
        });
      }
    }
  }
}

/**
 * With a `delete` of a run's version that names `synced` (an acknowledged
 * run's id, see {@link insertCommittedDeleted}): that run's files, as this
 * clone holds them with the run's bytes, removed here and recorded as its
 * user's deletion, for the same push; the paths removed. The store may
 * keep them (the marker there names that version: I1 leaves them, as
 * I36's).
 */
export async function syncedDelete(
  env: CommandEnv,
  op: Extract<Op, { kind: "delete" }>,
  svc: SyncService,
): Promise<string[]> {
  const rec = env.truth.runs.find((r) => r.op === op.synced && r.outcome === "success");
  const gone: string[] = [];
  for (const f of rec?.files ?? []) {
    const here = await Deno.readFile(`${svc.cacheDir}/${f.path}`).catch(() => null);
    if (!here || !sameBytes(here, f.bytes)) continue;
    const hash = svc.state.synced(f.path)?.hash ?? await sha256Hex(here);
    await env.changes.record({ op: op.id, clone: op.clone, path: f.path, how: op.how }, null, hash);
    env.truth.userDeletedCommitted.add(f.path);
    await Deno.remove(`${svc.cacheDir}/${f.path}`);
    gone.push(f.path);
  }
  return gone;
}
