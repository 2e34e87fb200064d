/**
 * What the tests of a `resolve --mine` whose side here is the deletion of a
 * data version its `latest` marker here names share: a clone `a` that
 * published versions 1 and 2 of one data name (the marker naming 2), then
 * deleted version 2 here, while another client of the layout published
 * version 2's raw again with other bytes; `a`'s pull met that as a conflict
 * with the deletion.
 *
 * @module
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import type { RemoteSide } from "./conflicts.ts";
import type { SyncService } from "./service.ts";
import { clone, put } from "./clone_kit.ts";

/** The data name's directory. */
export const DATA = "data/shell/cmd/m1/out";
/** Its `latest` marker. */
export const MARKER = `${DATA}/latest`;
/** Version 2's raw, the path in conflict. */
export const RAW = `${DATA}/2/raw`;
/** Version 2's metadata.yaml, deleted here too (no conflict). */
export const META = `${DATA}/2/metadata.yaml`;
/** The bytes the other client published at `RAW`. */
export const THEIRS = "the old client's version 2";

/**
 * A clone `a` over `store` that published versions 1 and 2 of the data name
 * (`raw` and `metadata.yaml` each), its marker naming 2.
 */
export async function twoVersionsPublished(store: InMemoryStore): Promise<SyncService> {
  const a = await clone(store, "a");
  for (const n of ["1", "2"]) {
    await put(a, `${DATA}/${n}/raw`, `version ${n}`);
    await put(a, `${DATA}/${n}/metadata.yaml`, `version: ${n}`);
  }
  await put(a, MARKER, "2");
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  return a;
}

/**
 * The store and `a`, its conflict at `RAW` open: mine the deletion, theirs
 * the other client's copy (see the module). With `markerHere`, the marker
 * here is set to that text (marked, not pushed) before the pull, so that it
 * no longer names version 2 while the committed marker still does.
 *
 * @example
 * ```ts
 * import { deletedUnderMarker, RAW } from "./resolve_under_marker_kit.ts";
 * const { a } = await deletedUnderMarker();
 * console.log(a.conflicts().map((c) => c.path)); // [RAW]
 * ```
 */
export async function deletedUnderMarker(
  markerHere?: string,
): Promise<{ store: InMemoryStore; a: SyncService; theirs: RemoteSide }> {
  const store = new InMemoryStore();
  const a = await twoVersionsPublished(store);
  await Deno.remove(`${a.cacheDir}/${DATA}/2`, { recursive: true });
  if (markerHere !== undefined) await put(a, MARKER, markerHere);
  await a.markDirty({ relPaths: [RAW, META] });
  await peerPush(store, { [RAW]: THEIRS });
  assert.deepEqual((await a.pullChanged()).conflicts, [RAW]);
  const rec = a.conflicts().find((c) => c.path === RAW);
  assert.equal(rec?.mine, null, "the side here is the deletion");
  assert.ok(rec?.theirs, "theirs is the other client's copy");
  return { store, a, theirs: rec.theirs };
}
