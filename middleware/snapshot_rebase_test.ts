import assert from "node:assert/strict";
import { createSluice } from "../sluice.ts";
import { FakeClock, InMemoryStore, planEntry } from "../packages/testing/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import { RacingStore } from "../sync/service/clone_kit.ts";
import type { WarningEvent } from "../sync/events.ts";
import type { SyncService } from "../sync/service/service.ts";
import { CHANGED_REMOTELY } from "./config_cas_writer.ts";
import { isSnapshot, SNAPSHOT_RACE_REASON } from "./snapshot_rebase.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { UNCOMMITTED_HOLDS } from "../sync/service/push_result.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";

const EXPORT = "prod/.catalog-export.json";
const enc = new TextEncoder();
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

interface Clone {
  readonly svc: SyncService;
  readonly warnings: WarningEvent[];
  write(path: string, text: string): Promise<void>;
}

async function clone(store: InMemoryStore, name: string): Promise<Clone> {
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-snapshot-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: { retry },
    conditional: new ConditionalWrites(),
  });
  const warnings: WarningEvent[] = [];
  svc.events.on("warning", (w) => warnings.push(w));
  const write = async (path: string, text: string) => {
    await svc.cache.write(path, enc.encode(text));
    await svc.markDirty({ relPath: path });
  };
  return { svc, warnings, write };
}

Deno.test("a catalog export at the root or directly under a namespace is a snapshot; nothing else is", () => {
  for (const path of [".catalog-export.json", EXPORT]) {
    assert.equal(isSnapshot(planEntry(path, { class: "index" })), true, path);
  }
  for (
    const [path, cls] of [
      ["prod/sub/.catalog-export.json", "other"],
      ["data/t/m/_meta.json", "index"],
      [EXPORT, "other"],
    ] as const
  ) {
    assert.equal(isSnapshot(planEntry(path, { class: cls })), false, `${path} (${cls})`);
  }
});

Deno.test("a catalog export another clone published since is written over it: no conflict, no warning", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await a.write(EXPORT, '["m1"]');
  await a.svc.pushChanged();
  await b.write(EXPORT, '["m2"]'); // never synced by b: its write is a create, refused
  const r = await b.svc.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(r.uploaded, [EXPORT]);
  assert.deepEqual(b.svc.conflicts(), []);
  assert.ok(!b.warnings.some((w) => w.code === CHANGED_REMOTELY));
  assert.equal(store.peekText(EXPORT), '["m2"]');
  assert.deepEqual(b.svc.state.dirtyPaths(), []);
  // The index names b's write: a fresh clone pulls b's snapshot.
  const c = await clone(store, "c");
  await c.svc.pullChanged();
  assert.equal(await Deno.readTextFile(`${c.svc.cacheDir}/${EXPORT}`), '["m2"]');
});

Deno.test("a catalog export replaced by another writer between its re-base and its write stays dirty, no conflict, and the next push publishes it", async () => {
  const store = new RacingStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await a.write(EXPORT, '["m1"]');
  await a.svc.pushChanged();
  await b.write(EXPORT, '["m2"]');
  // b's re-based write (over a's version) meets a's newer export, pushed just before it.
  store.beforePut = {
    match: (key, mode) => key === EXPORT && mode.kind === "update",
    run: async () => {
      await a.write(EXPORT, '["m1","m3"]');
      await a.svc.pushChanged();
    },
  };
  const r = await b.svc.pushChanged();
  assert.equal(store.beforePut, undefined, "the race ran");
  assert.equal(store.peekText(EXPORT), '["m1","m3"]', "a's write stands: nothing written blindly");
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(b.svc.conflicts(), []);
  assert.ok(!b.warnings.some((w) => w.code === CHANGED_REMOTELY));
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty, s.reason]), [
    [EXPORT, true, SNAPSHOT_RACE_REASON],
  ]);
  assert.deepEqual(b.svc.state.dirtyPaths(), [EXPORT]);
  const again = await b.svc.pushChanged();
  assert.deepEqual(again.conflicts, []);
  assert.deepEqual(again.uploaded, [EXPORT]);
  assert.equal(store.peekText(EXPORT), '["m2"]');
  assert.deepEqual(b.svc.state.dirtyPaths(), []);
});

Deno.test("a catalog export meeting another writer's uncommitted object waits for it, as any file does", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await a.write(EXPORT, '["m1"]');
  await a.svc.pushChanged();
  store.seed(EXPORT, '["c"]', { [WRITER_METADATA]: "c-writer" }); // c's push stopped before its index update
  await b.write(EXPORT, '["m2"]');
  const r = await b.svc.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty, s.reason]), [
    [EXPORT, true, UNCOMMITTED_HOLDS],
  ]);
  assert.equal(store.peekText(EXPORT), '["c"]', "not taken from under its writer");
  assert.deepEqual(b.svc.state.dirtyPaths(), [EXPORT]);
});

Deno.test("a conflict recorded on a catalog export by an earlier build is settled when a push publishes it", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await a.write(EXPORT, '["m1"]');
  await a.svc.pushChanged();
  const theirs = (await store.head(EXPORT))!;
  await b.write(EXPORT, '["m2"]');
  await b.svc.state.conflicts.record([{
    path: EXPORT,
    mine: { location: EXPORT, hash: "", size: 6 },
    theirs: { version: theirs.version, hash: "", size: theirs.size },
    foundBy: "push",
    at: 0,
    reason: "changed remotely: this cache's copy is not based on the datastore's version",
  }]);
  const r = await b.svc.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.equal(store.peekText(EXPORT), '["m2"]');
  assert.deepEqual(b.svc.conflicts(), []);
  assert.deepEqual(b.svc.state.dirtyPaths(), []);
});

Deno.test("an ordinary index file and other state a peer changed are still conflicts", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const files = ["data/t/m/_meta.json", "notes/n.txt", "prod/sub/.catalog-export.json"];
  for (const f of files) await a.write(f, "a");
  await a.svc.pushChanged();
  for (const f of files) await b.write(f, "b");
  const r = await b.svc.pushChanged();
  assert.deepEqual([...r.conflicts].sort(), [...files].sort());
  assert.deepEqual(b.svc.conflicts().map((c) => c.path).sort(), [...files].sort());
  assert.deepEqual(
    b.warnings.filter((w) => w.code === CHANGED_REMOTELY).map((w) => w.path).sort(),
    [...files].sort(),
  );
  for (const f of files) assert.equal(store.peekText(f), "a", f);
});

Deno.test("a catalog export an old client published (its entry records no version) is written over it, not waited on as an uncommitted upload", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await a.write(EXPORT, '["m1"]');
  await a.svc.pushChanged();
  // An old client's plain write and its commit, whose entry carries no version.
  const old = enc.encode('["m0","m1"]');
  await store.put(EXPORT, old, { kind: "overwrite" });
  const h = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", old)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  await updateIndex(
    store,
    { set: { [EXPORT]: { v: `~${h}`, h, s: old.length } }, remove: [] },
    retry,
  );
  await a.write(EXPORT, '["m1","m2"]');
  const r = await a.svc.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(r.uploaded, [EXPORT]);
  assert.deepEqual(
    a.warnings.map((w) => w.code).filter((c) =>
      c === "push_waiting_uncommitted" || c === CHANGED_REMOTELY
    ),
    [],
  );
  assert.equal(store.peekText(EXPORT), '["m1","m2"]');
});
