import assert from "node:assert/strict";
import { erasureFixture, erasureWithStore as fresh } from "./erasure_fixture.ts";
import {
  completeErasure,
  emptyJournal,
  readErasureJournal,
  writeErasureJournal,
} from "./erasure.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { LocalCache } from "../sync/transfer/cache.ts";
import { SyncState } from "../sync/service/state.ts";
import { PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { readIndex, updateIndex } from "../sync/transfer/remote_index.ts";

const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);
const D = "data/t/m/d";

Deno.test("completing an erasure a crash cut off after the move keeps a later run's same version", async () => {
  const f = await fresh();
  await f.dirty(`${D}/2/raw`, "refused run");
  await f.dirty(`${D}/latest`, "2");
  const j = { ...emptyJournal(), erase: [`${D}/2`] };
  await writeErasureJournal(f.cache, j);
  // The process dies right after moving the directory away, before the journal says so.
  const move = f.cache.moveToState.bind(f.cache);
  f.cache.moveToState = async (path: string, name: string) => {
    await move(path, name);
    throw new Error("the process died");
  };
  await assert.rejects(completeErasure(f, j), /the process died/);
  f.cache.moveToState = move;
  // Restarted, a later run writes version 2 anew before any push.
  await f.dirty(`${D}/2/raw`, "later run");
  const journal = await readErasureJournal(f.cache);
  assert.deepEqual(journal.erase, [`${D}/2`]);
  const done = await completeErasure(f, journal);
  assert.deepEqual(done.erased, [], "the directory was erased before the crash");
  assert.equal(text(await f.cache.read(`${D}/2/raw`)), "later run");
  assert.ok(f.state.dirtyPaths().includes(`${D}/2/raw`));
  assert.deepEqual(await readErasureJournal(f.cache), emptyJournal());
  assert.deepEqual(
    [...Deno.readDirSync(`${f.cache.dir}/.sluice/erasing`)],
    [],
    "nothing left moved away",
  );
});

Deno.test("an erasure cut off after its move, with a put-back still due, keeps the run's bytes and makes it on the next try", async () => {
  const f = await erasureFixture("sluice-erasure-keep-");
  const store = new InMemoryStore();
  const RAW = `${D}/2/raw`;
  await f.dirty(RAW, "same");
  await f.dirty(`${D}/latest`, "2");
  const mine = await store.put(RAW, enc("same"), PutModes.create);
  const h = await sha256Hex(enc("same"));
  // A peer's commit named the object; this erasure deleted it (cut off before its second look).
  await updateIndex(store, {
    set: { [RAW]: { v: mine.version, h, s: 4 } },
    remove: [],
    base: { [RAW]: null },
  }, NO_RETRY);
  await store.delete(RAW);
  store.failNext("put", 1, undefined, { match: (k) => k === RAW }); // the put-back fails once
  const j = {
    ...emptyJournal(),
    erase: [`${D}/2`],
    uploads: [{ path: RAW, version: mine.version }],
    prefixes: ["data/t/m"],
  };
  await writeErasureJournal(f.cache, j);
  // The process dies after the move, in the marker step.
  let alive = true;
  let moved = false;
  const dying = new Proxy(f.cache, {
    get(t, p) {
      const v = Reflect.get(t, p, t);
      if (typeof v !== "function") return v;
      if (p === "moveToState") moved = true;
      if (p === "listFiles" && alive && moved) {
        return () => {
          alive = false;
          throw new Error("the process died");
        };
      }
      return v.bind(t);
    },
  });
  await assert.rejects(completeErasure({ ...f, cache: dying, store }, j), /the process died/);
  assert.equal(text(await f.cache.read(RAW)), null, "the run's directory left the cache");
  const resumed = await completeErasure({ ...f, store }, await readErasureJournal(f.cache));
  assert.deepEqual(resumed.restored, [RAW], "put back from the bytes kept");
  assert.equal(store.peekText(RAW), "same");
  assert.equal(
    (await readIndex(store, NO_RETRY))!.entries[RAW].v,
    (await store.head(RAW))!.version,
  );
  const after = await readErasureJournal(f.cache);
  assert.deepEqual([after.trash, after.uploads, after.keep], [[], [], undefined], "nothing left");
});

Deno.test("two processes completing one erasure at once: neither writes the other's progress away (no copy left in the state, no upload left on the store)", async () => {
  const f = await fresh();
  await f.cache.writeState("writer.json", { id: "me" });
  await f.dirty(`${D}/2/raw`, "refused");
  const up = await f.store.put(`${D}/2/raw`, enc("refused"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  const j = {
    ...emptyJournal(),
    erase: [`${D}/2`],
    uploads: [{ path: `${D}/2/raw`, version: up.version }],
    prefixes: ["data/t/m"],
  };
  await writeErasureJournal(f.cache, j);
  // A second process over the same cache (its push resumes the journal as the refused run erases).
  const other = {
    cache: new LocalCache(f.dir),
    state: await SyncState.open(f.dir),
    store: f.store,
  };
  // One of them cannot read the index: it leaves the upload pending, its bytes kept aside.
  f.store.failNext("get", 1, () => new Error("injected"), {
    match: (k) => k === ".datastore-index.json",
  });
  await Promise.all([
    completeErasure(f, structuredClone(j)).catch(() => undefined),
    completeErasure(other, structuredClone(j)).catch(() => undefined),
  ]);
  // The next push of either completes what is left.
  const left = await readErasureJournal(f.cache);
  if (left.uploads.length > 0 || left.trash.length > 0) await completeErasure(f, left);
  assert.equal(f.store.peekText(`${D}/2/raw`), undefined, "the refused upload is deleted");
  const erasing: string[] = [];
  try {
    for await (const e of Deno.readDir(`${f.dir}/.sluice/erasing`)) erasing.push(e.name);
  } catch { /* none */ }
  assert.deepEqual(erasing, [], "no copy of the refused run is left in the state");
  assert.deepEqual(await readErasureJournal(f.cache), emptyJournal());
});

Deno.test("an upload the erasure keeps, a peer's commit naming the same bytes, is no write of this cache's waiting for its commit any more", async () => {
  const f = await fresh();
  await f.cache.writeState("writer.json", { id: "me" });
  const RAW2 = `${D}/2/raw`;
  await f.dirty(RAW2, "same");
  await f.state.markAttempted([RAW2]); // the refused run's push was about to write it
  const up = await f.store.put(RAW2, enc("same"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  // A peer's deterministic run met the upload with equal bytes and committed it as its own.
  await updateIndex(f.store, {
    set: { [RAW2]: { v: up.version, h: await sha256Hex(enc("same")), s: 4 } },
    remove: [],
    base: { [RAW2]: null },
  }, NO_RETRY);
  const j = {
    ...emptyJournal(),
    erase: [`${D}/2`],
    uploads: [{ path: RAW2, version: up.version }],
  };
  await writeErasureJournal(f.cache, j);
  const out = await completeErasure(f, j);
  assert.deepEqual(out.kept, [RAW2]);
  assert.equal(f.store.peekText(RAW2), "same", "the peer's committed version stays");
  assert.equal(f.state.attempted(RAW2), false, "no later push takes it for this cache's own write");
});
