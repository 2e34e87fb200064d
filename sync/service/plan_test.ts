import assert from "node:assert/strict";
import { LocalCache } from "../transfer/cache.ts";
import { buildPlan, directoriesOf } from "./plan.ts";
import { sha256HexSync } from "../hash.ts";
import { SyncState } from "./state.ts";
import type { SyncService } from "./service.ts";
import { assertIndexCurrent, clone, put, read } from "./clone_kit.ts";
import { hookedStore, InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "sluice-plan-test-" });
  const cache = new LocalCache(dir, () => 0);
  const state = await SyncState.open(dir);
  const skipped: string[] = [];
  const plan = (dirty: readonly string[], walk = false, expanded: string[] = []) =>
    buildPlan(cache, state, dirty, walk, (p, why) => skipped.push(`${p}: ${why}`), expanded);
  /**
   * Writes `body` at `path` and records it as synced with the file's own
   * size and mtime, written a minute ago (so past the racy window: see
   * `racyWindowMs`).
   */
  const synced = async (path: string, body: string) => {
    await cache.write(path, enc(body));
    const past = new Date(Date.now() - 60_000);
    await Deno.utime(`${dir}/${path}`, past, past);
    const st = (await cache.stat(path))!;
    state.setSynced(path, { hash: sha256HexSync(enc(body)), version: "v1", ...st });
  };
  return {
    dir,
    cache,
    state,
    skipped,
    plan,
    synced,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

const actions = (entries: { path: string; action: string }[]) =>
  entries.map((e) => `${e.action} ${e.path}`);

Deno.test("a dirty file is put, a dirty synced path that is gone is deleted, anything else is skipped", async () => {
  await using t = await setup();
  await t.cache.write("b.txt", enc("new"));
  await t.synced("gone.txt", "old");
  await Deno.remove(`${t.dir}/gone.txt`);
  const plan = await t.plan(["gone.txt", "b.txt", "never.txt"]);
  assert.deepEqual(actions(plan), ["put b.txt", "delete gone.txt", "skip never.txt"]);
  assert.equal(plan[1].syncedVersion, "v1");
  assert.equal(plan[0].size, 3);
  assert.equal(plan[0].source, "dirty");
});

Deno.test("unsafe and layout-internal dirty paths never enter the plan", async () => {
  await using t = await setup();
  const plan = await t.plan(["../x", ".datastore-index.json", "data/t/m/.lock"]);
  assert.deepEqual(plan, []);
  assert.deepEqual(t.skipped, ["../x: unsafe path"]);
});

Deno.test("a dirty directory stands for what changed under it and for its synced paths that are gone", async () => {
  await using t = await setup();
  await t.synced("d/same.txt", "same");
  await t.synced("d/gone.txt", "gone");
  await Deno.remove(`${t.dir}/d/gone.txt`);
  await t.cache.write("d/new.txt", enc("new"));
  const expanded: string[] = [];
  const plan = await t.plan(["d"], false, expanded);
  assert.deepEqual(actions(plan), ["delete d/gone.txt", "put d/new.txt"]);
  assert.deepEqual(expanded, ["d"]);
});

Deno.test("a removed directory deletes its synced paths", async () => {
  await using t = await setup();
  await t.synced("d/a", "a");
  await t.synced("d/b", "b");
  await Deno.remove(`${t.dir}/d`, { recursive: true });
  const expanded: string[] = [];
  assert.deepEqual(actions(await t.plan(["d"], false, expanded)), ["delete d/a", "delete d/b"]);
  assert.deepEqual(expanded, ["d"]);
});

Deno.test("a link, or a path under one, is kept dirty and skipped, never taken for a deletion", async () => {
  await using t = await setup();
  await t.synced("real/f", "f");
  await Deno.symlink(`${t.dir}/real`, `${t.dir}/link`);
  const [entry] = await t.plan(["link/f"]);
  assert.equal(entry.action, "skip");
  assert.equal(entry.keepDirty, true);
  assert.match(entry.reason ?? "", /symbolic link.*stays dirty/);
  assert.equal(t.skipped.length, 1);
});

Deno.test("a walk puts only files whose bytes changed, and refreshes the mtime of touched ones", async () => {
  await using t = await setup();
  await t.synced("same.txt", "same");
  await t.synced("edited.txt", "before");
  await t.cache.write("edited.txt", enc("after, longer"));
  await t.cache.write("new.txt", enc("new"));
  // Touched: same bytes, another mtime (settled: older than the racy window).
  const touched = new Date(Date.now() - 30_000);
  await Deno.utime(`${t.dir}/same.txt`, touched, touched);
  const plan = await t.plan([], true);
  assert.deepEqual(actions(plan), ["put edited.txt", "put new.txt"]);
  assert.ok(plan.every((e) => e.source === "walk"));
  assert.equal(t.state.synced("same.txt")?.mtimeMs, touched.getTime());
});

Deno.test("a walk, of the cache or of a marked directory, passes over the layout's own files under a namespace as at the root, and reports none of them", async () => {
  await using t = await setup();
  for (
    const p of [
      "proj/.push-queue.json",
      "proj/.sluice/keep.txt",
      "proj/_catalog.db",
      "proj/.locks/global.json",
      ".push-queue.json",
      "proj/real.txt",
    ]
  ) await t.cache.write(p, enc(p));
  assert.deepEqual(actions(await t.plan([], true)), ["put proj/real.txt"]);
  assert.deepEqual(actions(await t.plan(["proj"])), ["put proj/real.txt"]);
  assert.deepEqual(t.skipped, []);
});

Deno.test("a walk reports its hashing as progress, against the count and bytes of the files it found changed", async () => {
  await using t = await setup();
  await t.synced("same.txt", "unchanged");
  await t.cache.write("a.txt", enc("12345"));
  await t.cache.write("b/c.txt", enc("123"));
  const seen: string[] = [];
  const plan = await buildPlan(t.cache, t.state, [], true, () => {}, [], [], (p) => {
    seen.push(`${p.op} ${p.filesDone}/${p.filesTotal} ${p.bytesDone}/${p.bytesTotal}`);
  });
  assert.deepEqual(actions(plan), ["put a.txt", "put b/c.txt"]);
  assert.deepEqual(seen, ["walk 1/2 5/8", "walk 2/2 8/8"], "the unchanged file is not hashed");
});

Deno.test("a plan passes over the synced and the recorded paths a fixed number of times, not once per dirty path", async () => {
  await using t = await setup();
  const gone: string[] = [];
  const fresh: string[] = [];
  for (let i = 0; i < 40; i++) {
    await t.synced(`data/m${i}/old`, `old ${i}`);
    await Deno.remove(`${t.dir}/data/m${i}/old`);
    gone.push(`data/m${i}/old`);
    await t.cache.write(`data/m${i}/new`, enc(`new ${i}`));
    fresh.push(`data/m${i}/new`);
  }
  await t.state.markAttempted(fresh);
  const passes = { synced: 0, attempted: 0 };
  const { syncedPaths, attemptedPaths } = t.state;
  t.state.syncedPaths = () => (passes.synced++, syncedPaths.call(t.state));
  t.state.attemptedPaths = () => (passes.attempted++, attemptedPaths.call(t.state));
  const plan = await t.plan([...gone, ...fresh]);
  const ops = actions(plan).map((a) => a.split(" ")[0]);
  assert.deepEqual([
    ops.filter((o) => o === "delete").length,
    ops.filter((o) => o === "put").length,
  ], [40, 40]);
  assert.ok(passes.synced <= 2, `synced paths listed ${passes.synced} times`);
  assert.ok(passes.attempted <= 2, `recorded paths listed ${passes.attempted} times`);
});

Deno.test("directoriesOf: every directory the paths lie in", () => {
  assert.deepEqual(
    [...directoriesOf(["a/b/c", "a/b/d", "e", "f/g"])].sort(),
    ["a", "a/b", "f"],
  );
});

Deno.test("a file edited within its timestamp's tick after its sync, to the same size, is found by a walk (racily clean: its record keeps no mtime)", async () => {
  await using t = await setup();
  await t.cache.write("racy.txt", enc("one"));
  const st = (await t.cache.stat("racy.txt"))!;
  // Synced at once after its write: within the racy window.
  t.state.setSynced("racy.txt", { hash: sha256HexSync(enc("one")), version: "v1", ...st });
  assert.equal(t.state.synced("racy.txt")?.mtimeMs, undefined);
  // Edited in the same tick: same size, same mtime.
  await Deno.writeTextFile(`${t.dir}/racy.txt`, "two");
  const at = new Date(st.mtimeMs);
  await Deno.utime(`${t.dir}/racy.txt`, at, at);
  assert.deepEqual(actions(await t.plan([], true)), ["put racy.txt"]);
});

Deno.test("a file synced long after its last write keeps its mtime: a walk does not hash it again", async () => {
  await using t = await setup();
  await t.synced("settled.txt", "one");
  assert.equal(typeof t.state.synced("settled.txt")?.mtimeMs, "number");
  assert.deepEqual(actions(await t.plan([], true)), []);
});

/**
 * The record of `path` as if made `ms` earlier (a file's ctime cannot be
 * set, and the system gives it to the second): its ctime moved since.
 */
function recordedEarlier(state: SyncState, path: string, ms = 5_000): void {
  const s = state.synced(path)!;
  assert.equal(typeof s.ctimeMs, "number", "the record keeps the ctime");
  state.setSynced(path, { ...s, ctimeMs: s.ctimeMs! - ms });
}

Deno.test("a synced file edited to the same size with its mtime put back (touch -r, cp -p, a restore) is found by a walk: its ctime moved", async () => {
  await using t = await setup();
  await t.synced("kept.txt", "one");
  recordedEarlier(t.state, "kept.txt");
  const s = t.state.synced("kept.txt")!;
  await Deno.writeTextFile(`${t.dir}/kept.txt`, "two");
  const at = new Date(s.mtimeMs!);
  await Deno.utime(`${t.dir}/kept.txt`, at, at);
  const st = (await t.cache.stat("kept.txt"))!;
  assert.equal(st.size, s.size);
  assert.equal(st.mtimeMs, s.mtimeMs, "size and mtime as recorded");
  assert.deepEqual(actions(await t.plan([], true)), ["put kept.txt"]);
});

Deno.test("a synced file whose ctime alone moved (chmod) is hashed once, found unchanged, and its ctime recorded: the next walk hashes nothing", async () => {
  await using t = await setup();
  await t.synced("mode.txt", "same");
  recordedEarlier(t.state, "mode.txt");
  await Deno.chmod(`${t.dir}/mode.txt`, 0o600);
  const hashed: string[] = [];
  const walk = () =>
    buildPlan(t.cache, t.state, [], true, () => {}, [], [], (p) => {
      hashed.push(`${p.filesDone}/${p.filesTotal}`);
    });
  assert.deepEqual(actions(await walk()), []);
  assert.deepEqual(hashed, ["1/1"], "hashed once");
  assert.equal(t.state.synced("mode.txt")?.ctimeMs, (await t.cache.stat("mode.txt"))!.ctimeMs);
  hashed.length = 0;
  assert.deepEqual(actions(await walk()), []);
  assert.deepEqual(hashed, [], "not hashed again");
});

Deno.test("a record made before ctimes were kept compares size and mtime alone", async () => {
  await using t = await setup();
  await t.synced("old.txt", "one");
  const { ctimeMs: _c, ...old } = t.state.synced("old.txt")!;
  t.state.setSynced("old.txt", old);
  const hashed: string[] = [];
  await buildPlan(t.cache, t.state, [], true, () => {}, [], [], (p) => void hashed.push(p.op));
  assert.deepEqual(hashed, [], "not hashed");
});

Deno.test("a marked directory's unchanged files get their settled mtime recorded, so the next push of it hashes none of them", async () => {
  await using t = await setup();
  await t.cache.write("d/a.txt", enc("a"));
  const st = (await t.cache.stat("d/a.txt"))!;
  t.state.setSynced("d/a.txt", { hash: sha256HexSync(enc("a")), version: "v1", ...st });
  assert.equal(t.state.synced("d/a.txt")?.mtimeMs, undefined, "racy when recorded");
  const past = new Date(Date.now() - 60_000);
  await Deno.utime(`${t.dir}/d/a.txt`, past, past);
  assert.deepEqual(actions(await t.plan(["d"])), []);
  assert.equal(t.state.synced("d/a.txt")?.mtimeMs, past.getTime());
});

/**
 * The `latest` marker of a deleted version: the datastore's deletion of a
 * version marks only the version's directory and rewrites the marker (or
 * removes it with the data) without a mark of its own. The push of the
 * deletion publishes the marker's local state; a marker unchanged here is
 * left alone; a peer's change of it since this cache's sync is a conflict.
 */
const DATA = "data/shell/cmd/m1/out";
const LATEST = `${DATA}/latest`;

/** A clone that published versions 1..`n` of `DATA` (its directory marked), `latest` naming `n`. */
async function withVersions(store: InMemoryStore, n: number): Promise<SyncService> {
  const a = await clone(store, "a");
  await a.markDirty({ relPath: DATA });
  for (let v = 1; v <= n; v++) {
    await writeCacheFile(a.cacheDir, `${DATA}/${v}/metadata.yaml`, `version: ${v}\n`);
    await writeCacheFile(a.cacheDir, `${DATA}/${v}/raw`, `v${v}`);
  }
  await writeCacheFile(a.cacheDir, LATEST, String(n));
  await a.pushChanged();
  assert.equal(store.peekText(LATEST), String(n));
  return a;
}

/** The datastore's deletion of version `v`: its directory marked, then removed. */
async function deleteVersion(svc: SyncService, v: number): Promise<void> {
  await svc.markDirty({ relPath: `${DATA}/${v}` });
  await Deno.remove(`${svc.cacheDir}/${DATA}/${v}`, { recursive: true });
}

Deno.test("the deletion of the latest version publishes the marker rewritten here, unmarked, to the version left", async () => {
  const store = new InMemoryStore();
  const a = await withVersions(store, 3);
  await deleteVersion(a, 3);
  await writeCacheFile(a.cacheDir, LATEST, "2");
  const r = await a.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.equal(store.peekText(`${DATA}/3/raw`), undefined);
  assert.equal(store.peekText(LATEST), "2", "the datastore's marker names the version left");
  const c = await clone(store, "c");
  await c.pullChanged();
  const named = await read(c, LATEST);
  assert.equal(named, "2");
  assert.equal(await read(c, `${DATA}/${named}/raw`), "v2");
  assert.equal(await read(c, `${DATA}/3/raw`), undefined);
  await assertIndexCurrent(store, { held: true });
});

Deno.test("the deletion of the only version, its data directory removed with its marker, deletes the marker too", async () => {
  const store = new InMemoryStore();
  const a = await withVersions(store, 1);
  await a.markDirty({ relPath: `${DATA}/1` });
  await Deno.remove(`${a.cacheDir}/${DATA}`, { recursive: true });
  await a.pushChanged();
  assert.equal(store.peekText(`${DATA}/1/raw`), undefined);
  assert.equal(store.peekText(LATEST), undefined, "no marker left naming a deleted version");
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, LATEST), undefined);
  await assertIndexCurrent(store, { held: true });
});

Deno.test("the deletion of an older version leaves a marker rewritten here with the same version alone: no write of it", async () => {
  const store = new InMemoryStore();
  const writes: string[] = [];
  const a = await withVersions(
    hookedStore(store, {
      before: (k) => void writes.push(k),
      beforeDelete: (k) => void writes.push(k),
    }),
    3,
  );
  writes.length = 0;
  await deleteVersion(a, 1);
  // Rewritten as the datastore does after any deletion: the same version, a new mtime.
  await Deno.remove(`${a.cacheDir}/${LATEST}`);
  await writeCacheFile(a.cacheDir, LATEST, "3");
  const r = await a.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.equal(store.peekText(`${DATA}/1/raw`), undefined);
  assert.equal(store.peekText(LATEST), "3");
  assert.deepEqual(writes.filter((k) => k === LATEST), [], "the unchanged marker is not written");
});

Deno.test("the marker a version's deletion carries along meets a peer's change of it since this cache's sync as a conflict", async () => {
  const store = new InMemoryStore();
  const a = await withVersions(store, 3);
  const b = await clone(store, "b");
  await b.pullChanged();
  await put(b, `${DATA}/4/raw`, "v4");
  await put(b, LATEST, "4");
  await b.pushChanged();
  assert.equal(store.peekText(LATEST), "4");
  await deleteVersion(a, 3);
  await writeCacheFile(a.cacheDir, LATEST, "2");
  const r = await a.pushChanged();
  assert.equal(store.peekText(`${DATA}/3/raw`), undefined);
  assert.deepEqual(r.conflicts, [LATEST], "a conflict, not an overwrite of the peer's marker");
  assert.equal(store.peekText(LATEST), "4", "the peer's marker stays");
  assert.equal(await read(a, LATEST), "2", "this cache keeps its own");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a marker taken along unmarked whose deletion fails stays dirty, and the next push deletes it", async () => {
  const store = new InMemoryStore();
  const a = await withVersions(store, 1);
  await a.markDirty({ relPath: `${DATA}/1` });
  await Deno.remove(`${a.cacheDir}/${DATA}`, { recursive: true });
  store.failNext("delete", 1, undefined, { match: (k) => k === LATEST });
  await assert.rejects(a.pushChanged());
  assert.equal(store.peekText(`${DATA}/1/raw`), undefined);
  assert.equal(store.peekText(LATEST), "1");
  assert.ok(a.state.dirtyPaths().includes(LATEST), "the failed marker stays dirty");
  await a.pushChanged();
  assert.equal(store.peekText(LATEST), undefined);
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a walk of a marked directory plans what a classifier rule publishes, though the layout would keep it local", async () => {
  const store = new InMemoryStore();
  const rules = { classifierRules: [{ pattern: "files/**", class: "other" as const }] };
  const a = await clone(store, "a", undefined, rules);
  await writeCacheFile(a.cacheDir, "files/_index/notes.md", "user notes");
  await writeCacheFile(a.cacheDir, "files/plain.md", "plain");
  await a.markDirty({ relPath: "files" });
  await a.pushChanged();
  assert.equal(store.peekText("files/plain.md"), "plain");
  assert.equal(store.peekText("files/_index/notes.md"), "user notes");
});

for (const fromBytes of [true, false]) {
  Deno.test(
    `a marker taken along with a version's deletion that is refused stays as the datastore has it, naming the peer's version (${
      fromBytes
        ? "versions from the bytes, as S3 ETags"
        : "a new version per write, as GCS generations"
    })`,
    async () => {
      const D = "data/shell/cmd/m1/out";
      const LATEST = `${D}/latest`;
      const store = new InMemoryStore({ versionFromBytes: fromBytes });
      const a = await clone(store, "a");
      for (let v = 1; v <= 3; v++) {
        await put(a, `${D}/${v}/metadata.yaml`, `version: ${v}\n`);
        await put(a, `${D}/${v}/raw`, `v${v}`);
      }
      await put(a, LATEST, "3");
      await a.pushChanged();
      // A peer deletes version 3, then writes a version 3 of its own and sets
      // the marker back to "3": on S3 the marker has the version a synced.
      const b = await clone(store, "b");
      await b.pullChanged();
      await b.markDirty({ relPath: `${D}/3` });
      await Deno.remove(`${b.cacheDir}/${D}/3`, { recursive: true });
      await writeCacheFile(b.cacheDir, LATEST, "2");
      await b.pushChanged();
      await put(b, `${D}/3/metadata.yaml`, "version: 3 (b)\n");
      await put(b, `${D}/3/raw`, "v3 by b");
      await put(b, LATEST, "3");
      await b.pushChanged();
      // a, stale, deletes its version 3 as the tool does (the marker rewritten, unmarked).
      await a.markDirty({ relPath: `${D}/3` });
      await Deno.remove(`${a.cacheDir}/${D}/3`, { recursive: true });
      await writeCacheFile(a.cacheDir, LATEST, "2");
      const r = await a.pushChanged();
      assert.deepEqual([...r.conflicts].sort(), [
        `${D}/3/metadata.yaml`,
        `${D}/3/raw`,
      ]);
      assert.equal(store.peekText(`${D}/3/raw`), "v3 by b", "b's version stays");
      assert.equal(store.peekText(LATEST), "3", "the marker still names b's version 3");
      assert.ok(!a.state.dirtyPaths().includes(LATEST), "not pushed again by the next push");
    },
  );
}
