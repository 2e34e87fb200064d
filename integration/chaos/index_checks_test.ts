import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext, planEntry, spyNext } from "../../packages/testing/mod.ts";
import { ErasureRefusedError, readErasureJournal } from "../../middleware/erasure.ts";
import { refusedRunEraser } from "../../middleware/refused_run_eraser.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { ModelLockLostError } from "../../sync/lock_errors.ts";
import { PutModes } from "../../sync/ports.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { checkNothingUnnamed } from "./index_checks.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const V1 = "data/t/m/d/1";

Deno.test("I11: an object the index does not name is reported, unless it is its writer's pending change under an open conflict", async () => {
  const store = new InMemoryStore();
  const meta = { metadata: { [WRITER_METADATA]: "w1" } };
  await store.put("notes/named.md", bytes("a"), PutModes.overwrite, meta);
  await store.put("notes/stranded.md", bytes("b"), PutModes.overwrite, meta);
  await store.put("data/t/m/.lock", bytes("{}"), PutModes.overwrite);
  const entries = { "notes/named.md": { v: "v1", h: "", s: 1 } };
  const none = { writer: "w1", conflicts: new Set<string>() };
  const found = await checkNothingUnnamed(store, entries, [none]);
  assert.deepEqual(found.map((v) => [v.invariant, v.message.split(" (")[0]]), [
    ["I11", "the store holds notes/stranded.md"],
  ]);
  const open = { writer: "w1", conflicts: new Set(["notes/stranded.md"]) };
  assert.deepEqual(await checkNothingUnnamed(store, entries, [open]), []);
  const other = { writer: "w2", conflicts: new Set(["notes/stranded.md"]) };
  assert.equal((await checkNothingUnnamed(store, entries, [other])).length, 1);
});

/**
 * A file a clone deleted by hand, unmarked, whose entry an old client's
 * write-back dropped: the pull keeps its record, synced at that version, and
 * the object stays unnamed until the user pushes the path by name or takes
 * it back. Spared for that very version alone, whoever wrote it.
 */
Deno.test("I11: the object a clone holds synced, its file deleted there unmarked, is that clone's pending deletion", async () => {
  const store = new InMemoryStore();
  const info = await store.put("notes/kept.md", bytes("a"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "w1" },
  });
  const deletedHere = (path: string, version: string) =>
    path === "notes/kept.md" && version === info.version;
  const clone = { writer: "w2", conflicts: new Set<string>(), deletedHere };
  assert.deepEqual(await checkNothingUnnamed(store, {}, [clone]), []);
  const other = { ...clone, deletedHere: (p: string, v: string) => deletedHere(p, `${v}x`) };
  assert.equal((await checkNothingUnnamed(store, {}, [other])).length, 1);
});

/**
 * Seed 130200227: a same-output run's second pass (its first pass's commit
 * named its `raw`, found in place; its `metadata.yaml`, erased by the other
 * run meanwhile, was written again) was refused for its lock broken, and its
 * version, holding a file the first pass committed, was held
 * (`erasure_refused`). The held version's files stay on the datastore by
 * design, each recorded in the erasure journal's held run: a pending change
 * that `sluice held --keep` publishes and `--discard` deletes, which I11
 * spares as it spares a clone's own write under an open conflict.
 */
Deno.test("I11: a held run's own upload, recorded in its clone's erasure journal, is its pending change", async () => {
  const m = await mockPushContext({ written: [V1], preexisting: new Set() });
  const store = m.store as InMemoryStore;
  const raw = `${V1}/raw`;
  const meta = `${V1}/metadata.yaml`;
  await m.cache.write(raw, bytes("out"));
  const rawInfo = await store.put(raw, bytes("out"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "w2" },
  });
  await m.state.recordSynced(raw, {
    hash: await sha256Hex(bytes("out")),
    version: rawInfo.version,
    size: 3,
  });
  await m.cache.write(meta, bytes("meta"));
  await m.state.markDirty(meta);
  m.ctx.plan.push(planEntry(meta, { class: "data-version" }));
  const info = await store.put(meta, bytes("meta"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "w2" },
  });
  m.ctx.uploaded.push({ path: meta, info, created: true, outcome: "written" });
  const err = await refusedRunEraser()(
    m.ctx,
    spyNext(() => {
      throw new ModelLockLostError([{ key: "data/t/m/.lock", newHolder: null }]);
    }),
  ).then(() => undefined, (e) => e);
  assert.ok(err instanceof ErasureRefusedError);
  assert.equal(store.peekText(meta), "meta", "held: its upload left in place");
  const entries = { [raw]: { v: rawInfo.version, h: "", s: 3 } };
  const journal = await readErasureJournal(m.cache);
  const heldUploads = journal.held.flatMap((h) => h.uploads);
  const held = { writer: "w2", conflicts: new Set<string>(), heldUploads };
  assert.deepEqual(await checkNothingUnnamed(store, entries, [held]), []);
  // Another writer's object there, or another version of it, is no pending change of this clone's.
  const other = { ...held, writer: "w1" };
  assert.equal((await checkNothingUnnamed(store, entries, [other])).length, 1);
  await store.put(meta, bytes("later"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "w2" },
  });
  assert.equal((await checkNothingUnnamed(store, entries, [held])).length, 1);
});
