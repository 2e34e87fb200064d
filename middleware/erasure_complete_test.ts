import assert from "node:assert/strict";
import { erasureWithStore as fresh } from "./erasure_fixture.ts";
import { completeErasure } from "./erasure_complete.ts";
import { emptyJournal, readErasureJournal, writeErasureJournal } from "./erasure_journal.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { FakeClock } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { MONOLITH_KEY } from "../sync/transfer/bucket_layout.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";

const text = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);
const D = "data/t/m/d";

Deno.test("completeErasure is idempotent", async () => {
  const f = await fresh();
  await f.dirty(`${D}/1/raw`, "a");
  await f.dirty(`${D}/latest`, "1");
  const j = { ...emptyJournal(), erase: [`${D}/1`], prefixes: ["data/t/m"] };
  await writeErasureJournal(f.cache, j);
  const first = await completeErasure(f, j);
  assert.deepEqual(first.erased, [`${D}/1`]);
  // The refused run's own marker (a local change naming the erased version).
  assert.deepEqual(first.markers, [{ path: `${D}/latest`, version: null, dirty: false, was: "1" }]);
  // Run again over a journal that still names the directory (a crash before it said so).
  const stale = { ...emptyJournal(), erase: [`${D}/1`] };
  await writeErasureJournal(f.cache, stale);
  const again = await completeErasure(f, stale);
  assert.deepEqual(again.erased, [`${D}/1`]);
  assert.deepEqual(f.state.dirtyPaths(), []);
  assert.deepEqual(await readErasureJournal(f.cache), emptyJournal());
});

Deno.test("completeErasure keeps a marker dirty over this cache's own uncommitted marker object, not a peer's", async () => {
  for (const [writer, ownOrphan] of [["me", true], ["a-peer", false]] as const) {
    const f = await fresh();
    await f.cache.writeState("writer.json", { id: "me" });
    await f.synced(`${D}/1/raw`, "a");
    await f.synced(`${D}/latest`, "1"); // committed as version "r"
    // An earlier marker write of this cache (or a peer's) landed and never reached the index.
    f.store.seed(`${D}/latest`, "1", { [WRITER_METADATA]: writer });
    await f.dirty(`${D}/2/raw`, "refused");
    await f.dirty(`${D}/latest`, "2");
    const j = { ...emptyJournal(), erase: [`${D}/2`], prefixes: ["data/t/m"] };
    await writeErasureJournal(f.cache, j);
    const out = await completeErasure(f, j);
    assert.deepEqual(
      out.markers,
      [{ path: `${D}/latest`, version: 1, dirty: ownOrphan, was: "2" }],
      writer,
    );
    assert.equal(text(await f.cache.read(`${D}/latest`)), "1");
    assert.deepEqual(f.state.dirtyPaths(), ownOrphan ? [`${D}/latest`] : [], writer);
  }
});

Deno.test("completeErasure names an upload it puts back (a peer's commit names it, its object gone) at its clock's time", async () => {
  const f = await fresh();
  const clock = new FakeClock();
  const path = `${D}/1/raw`;
  await f.dirty(path, "a");
  const bytes = new TextEncoder().encode("a");
  const up = await f.store.put(path, bytes, PutModes.create);
  const entry = { v: up.version, h: await sha256Hex(bytes), s: 1 };
  const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
  await updateIndex(f.store, { set: { [path]: entry }, remove: [] }, retry);
  await f.store.delete(path); // the erasure cut off after its delete
  const j = { ...emptyJournal(), uploads: [{ path, version: up.version }] };
  await writeErasureJournal(f.cache, j);
  await completeErasure({ ...f, clock }, j);
  assert.equal(f.store.peekText(path), "a", "put back");
  const named = JSON.parse(f.store.peekText(MONOLITH_KEY)!).entries[path];
  assert.equal(named.lastModified, new Date(clock.now()).toISOString());
});
