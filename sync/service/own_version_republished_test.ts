/**
 * A data version this cache published, kept over the datastore's deletion
 * as a conflict (`pull_removals.ts`), then pushed again by name (as
 * `sluice push <path>` does) rather than through `resolve --mine`: once its
 * write is committed, the datastore holds it again and the conflict with the
 * deletion is settled, as `--mine` settles it.
 */
import assert from "node:assert/strict";
import { peerPush, peerReadIndex } from "../../packages/testing/mod.ts";
import { olderClientVersions, put } from "./clone_kit.ts";
import { OWN_VERSION_DELETED_REASON } from "./pull_removals.ts";

const DIR = "data/acme/box/m3/state";
const RAW = `${DIR}/3/raw`;

Deno.test("a data version kept over the datastore's deletion, pushed again by name: the conflict with the deletion is settled once it is committed", async () => {
  const { store, x } = await olderClientVersions(DIR);
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await peerPush(store, { [`${DIR}/latest`]: "2" }, { remove: [RAW] });
  await x.pullChanged();
  assert.equal(x.state.conflicts.get(RAW)?.reason, OWN_VERSION_DELETED_REASON);
  // Pushed by name: published again, as `resolve --mine` would.
  await x.markDirty({ relPath: RAW });
  const pushed = await x.pushChanged();
  assert.deepEqual(pushed.uploaded, [RAW]);
  assert.equal(store.peekText(RAW), "X-m3-first");
  assert.ok((await peerReadIndex(store))[RAW], "named by the index again");
  assert.deepEqual(
    x.conflicts().map((c) => `${c.path}: ${c.reason}`),
    [],
    "no conflict with a deletion the datastore no longer holds",
  );
});
