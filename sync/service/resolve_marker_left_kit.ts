/**
 * What the tests of a `resolve --mine` whose push holds back the `latest`
 * marker it publishes beside a data version's deletion share: the conflict
 * of `resolve_under_marker_kit.ts`, the marker here set to version 1 (the
 * push publishes it with the deletion), and the marker on the datastore
 * moved on since by another client, committed (a new conflict of the
 * marker's own) or uploaded with its commit cut off (an upload no index
 * names, which the push waits on).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { InMemoryStore } from "../../packages/testing/mod.ts";
import { peerPush } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import type { SyncService } from "./service.ts";
import { clone, isIndexKey, put } from "./clone_kit.ts";
import { DATA, deletedUnderMarker, MARKER } from "./resolve_under_marker_kit.ts";

/** How the marker on the datastore moved on after the pull that met the conflict. */
export type MarkerMoved = "committed" | "uploaded" | "none";

/**
 * The store and `a`, its conflict at `RAW` open (mine the deletion), the
 * marker here naming version 1, and the marker on the datastore naming a
 * version 3 another client published (`committed`), or uploaded with its
 * commit cut off (`uploaded`); with `none`, the marker there left as it was.
 *
 * @example
 * ```ts
 * import { markerMovedOn } from "./resolve_marker_left_kit.ts";
 * const { a } = await markerMovedOn("committed");
 * console.log(a.conflicts().length); // 1
 * ```
 */
export async function markerMovedOn(
  moved: MarkerMoved,
): Promise<{ store: InMemoryStore; a: SyncService }> {
  const { store, a } = await deletedUnderMarker("1");
  const v3 = { [`${DATA}/3/raw`]: "version 3", [`${DATA}/3/metadata.yaml`]: "version: 3" };
  if (moved === "committed") {
    await peerPush(store, { ...v3, [MARKER]: "3" });
  } else if (moved === "uploaded") {
    const c = await clone(store, "c");
    await c.pullChanged();
    for (const [p, text] of Object.entries(v3)) await put(c, p, text);
    await put(c, MARKER, "3");
    store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
    await assert.rejects(c.pushChanged(), /could not be reached/);
  }
  return { store, a };
}
