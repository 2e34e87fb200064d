/**
 * A data version this cache published whose record a damaged line of the
 * manifest's log held: the process opened after the damage counts the file
 * as never synced, and its next pull finds it holding the bytes the index
 * names. Taken for a copy of a peer's version, its record would say nothing
 * of its being this cache's own, and an older client's blind push deleting
 * the version would then remove the last copy here. The pull that finds it
 * keeps it this cache's own (the store's object carries this cache's writer
 * id), or, the object gone by then, leaves it unrecorded: a later pull keeps
 * it, as it keeps any file this cache never synced.
 */
import assert from "node:assert/strict";
import { peerPush } from "../../packages/testing/mod.ts";
import type { ObjectStore } from "../ports.ts";
import { damageLogLineOf } from "./damaged_log_kit.ts";
import { clone, olderClientVersions, put, read } from "./clone_kit.ts";
import { OWN_VERSION_DELETED_REASON } from "./pull_removals.ts";

const DIR = "data/acme/box/m3/state";
const RAW = `${DIR}/3/raw`;
const OTHER = "data/acme/box/m4/state";
/** The index shard naming both. */
const SHARD = "_index/data--acme--box.json";

/**
 * `x` publishes version 3 of `DIR` and its marker (the raw's record then
 * not the log's last line), the raw's record is damaged on disk, and `x`'s
 * process starts again over its cache (over `store`, to watch its calls).
 */
async function ownVersionRecordDamaged(store?: (base: ObjectStore) => ObjectStore) {
  const { store: base, x } = await olderClientVersions(DIR);
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  assert.ok(x.state.synced(RAW)?.own, "published here: its own");
  await damageLogLineOf(x.cacheDir, RAW);
  const again = await clone(store ? store(base) : base, "x", x.cacheDir);
  assert.equal(again.state.synced(RAW), undefined, "its record lost with the line");
  // A peer publishes another model's data, beside it in the index.
  await peerPush(base, { [`${OTHER}/1/raw`]: "P-m4-1" });
  return { store: base, x: again };
}

/** The older client's push that deletes version 3, object and entry, never having had it. */
const blindDelete = (store: ObjectStore) =>
  peerPush(store, { [`${DIR}/latest`]: "2" }, { remove: [RAW] });

Deno.test("a data version this cache published, its record lost to a damaged log line and found again by a pull, is kept as a conflict when an older client's blind push deletes it", async () => {
  const { store, x } = await ownVersionRecordDamaged();
  await x.pullChanged();
  assert.equal(x.state.synced(RAW)?.version, (await store.head(RAW))?.version, "found again");
  await blindDelete(store);
  const pulled = await x.pullChanged();
  assert.deepEqual(pulled.removed, [], "the last copy is not removed");
  assert.equal(await read(x, RAW), "X-m3-first");
  assert.deepEqual(pulled.conflicts, [RAW]);
  assert.equal(x.state.conflicts.get(RAW)?.reason, OWN_VERSION_DELETED_REASON);
});

Deno.test("a data version this cache published, its record lost to a damaged log line, whose blind deletion lands while a pull looks at it, is kept by the next pull", async () => {
  let armed = false;
  const { x } = await ownVersionRecordDamaged((base) =>
    new Proxy(base, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop !== "get") return value.bind(target);
        // The deletion lands just after the pull read the index shard naming the version.
        return async (...args: unknown[]) => {
          const got = await value.apply(target, args);
          if (armed && args[0] === SHARD) {
            armed = false;
            await blindDelete(target);
          }
          return got;
        };
      },
    })
  );
  armed = true;
  await x.pullChanged();
  assert.equal(armed, false, "the deletion landed in the pull");
  for (const pulled of [await x.pullChanged(), await x.pullChanged()]) {
    assert.deepEqual(pulled.removed, [], "the last copy is not removed");
  }
  assert.equal(await read(x, RAW), "X-m3-first");
});
