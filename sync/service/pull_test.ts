import assert from "node:assert/strict";
import { DROPPED_REASON } from "./dropped_entries.ts";
import { LocalCache, STATE_DIR } from "../transfer/cache.ts";
import {
  type IndexEntry,
  isLayoutInternal,
  META_KEY,
  MONOLITH_KEY,
  monolithBody,
} from "../transfer/bucket_layout.ts";
import { UnreadablePathError, UnsafePathError } from "../errors.ts";
import { bothSynced, clone, put, read } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";
import { createEmitter, type WarningEvent } from "../events.ts";
import { sha256HexSync } from "../hash.ts";
import { PutModes } from "../ports.ts";
import { pull, type PullDeps, pullLeftBehind } from "./pull.ts";
import { migrateToShards } from "../transfer/migrate_index.ts";
import { DEFAULT_CONFIG } from "./service_options.ts";
import { SyncState } from "./state.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);

/** A store holding `files`, with a v1 index naming each at its stored version. */
async function publish(store: InMemoryStore, files: Record<string, string>): Promise<void> {
  const entries: Record<string, IndexEntry> = {};
  for (const [path, body] of Object.entries(files)) {
    const info = await store.put(path, enc(body), PutModes.overwrite);
    const h = sha256HexSync(enc(body));
    entries[path] = { v: info.version, h, s: enc(body).length };
  }
  await store.put(
    MONOLITH_KEY,
    monolithBody(entries, "2026-01-01T00:00:00.000Z"),
    PutModes.overwrite,
  );
}

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "sluice-pull-test-" });
  const store = new InMemoryStore();
  const clock = new FakeClock(1_000);
  const cache = new LocalCache(dir, () => clock.now());
  const state = await SyncState.open(dir);
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const deps: PullDeps = {
    store,
    cache,
    state,
    config: { ...DEFAULT_CONFIG, retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    events,
    signal: new AbortController().signal,
    isInternal: (p) => p.startsWith(`${STATE_DIR}/`) || isLayoutInternal(p),
    now: () => clock.now(),
  };
  return {
    dir,
    store,
    cache,
    state,
    deps,
    warnings,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("a pull of an empty datastore into a new cache is unchanged and writes nothing", async () => {
  await using t = await setup();
  const r = await pull(t.deps);
  assert.equal(r.unchanged, true);
  assert.deepEqual(r.fetched, []);
  assert.deepEqual(t.state.syncedPaths(), []);
});

Deno.test("a pull fetches what the index lists, records it as synced, and is then unchanged", async () => {
  await using t = await setup();
  await publish(t.store, { "notes/a.txt": "alpha", "logs/b.log": "beta" });
  const r = await pull(t.deps);
  assert.deepEqual(r.fetched.sort(), ["logs/b.log", "notes/a.txt"]);
  assert.equal(r.bytes, 9);
  assert.equal(text(await t.cache.read("notes/a.txt")), "alpha");
  assert.equal(t.state.synced("notes/a.txt")?.hash, sha256HexSync(enc("alpha")));
  assert.deepEqual(t.state.dirtyPaths(), []);
  t.store.resetLog();
  const again = await pull(t.deps);
  assert.equal(again.unchanged, true);
  // A v1 bucket: the meta, then a HEAD of the index object, and nothing else.
  assert.deepEqual(t.store.log.map((r) => `${r.op} ${r.key}`), [
    `get ${META_KEY}`,
    `head ${MONOLITH_KEY}`,
  ]);
});

Deno.test("a first pull reads the index at once; a later pull heads it first, and reads the meta once", async () => {
  await using t = await setup();
  await publish(t.store, { "notes/a.txt": "alpha" });
  t.store.resetLog();
  await pull(t.deps);
  const indexCalls = () =>
    t.store.log.map((r) => `${r.op} ${r.key}`).filter((c) => !c.endsWith("notes/a.txt"));
  // Nothing to compare a token with: no HEAD, one meta read.
  assert.deepEqual(indexCalls(), [`get ${META_KEY}`, `get ${MONOLITH_KEY}`]);
  await publish(t.store, { "notes/a.txt": "alpha 2" });
  t.store.resetLog();
  const r = await pull(t.deps);
  assert.deepEqual(r.fetched, ["notes/a.txt"]);
  // The token changed: the index is read, and the meta is not read again.
  assert.deepEqual(indexCalls(), [
    `get ${META_KEY}`,
    `head ${MONOLITH_KEY}`,
    `get ${MONOLITH_KEY}`,
  ]);
  // On a v2 bucket the meta read for the token is the one the read uses.
  await migrateToShards(t.store, { retry: t.deps.config.retry });
  t.store.resetLog();
  await pull(t.deps);
  const v2 = t.store.log.map((r) => `${r.op} ${r.key}`);
  assert.equal(v2.filter((c) => c === `get ${META_KEY}`).length, 1, v2.join(", "));
});

Deno.test("a pull with prefixes takes only paths under them", async () => {
  await using t = await setup();
  await publish(t.store, { "notes/a.txt": "alpha", "notes2/x": "x", "logs/b.log": "beta" });
  const r = await pull(t.deps, ["notes"]);
  assert.deepEqual(r.fetched, ["notes/a.txt"]);
  assert.equal(t.cache.exists("notes2/x"), false);
  assert.equal(t.cache.exists("logs/b.log"), false);
});

Deno.test("a local change is never overwritten: the datastore's new version becomes a conflict", async () => {
  await using t = await setup();
  await publish(t.store, { "config/app.yaml": "v1" });
  await pull(t.deps);
  await t.cache.write("config/app.yaml", enc("edited here"));
  await publish(t.store, { "config/app.yaml": "v2 from a peer" });
  const r = await pull(t.deps);
  assert.deepEqual(r.conflicts, ["config/app.yaml"]);
  assert.deepEqual(r.fetched, []);
  assert.equal(text(await t.cache.read("config/app.yaml")), "edited here");
  const rec = t.state.conflicts.get("config/app.yaml");
  assert.equal(rec?.foundBy, "pull");
  assert.equal(rec?.at, 1_000);
  assert.equal(rec?.theirs?.hash, sha256HexSync(enc("v2 from a peer")));
  assert.deepEqual(t.warnings.map((w) => w.code), ["pull_conflict"]);
  // Reported once per version of theirs.
  await pull(t.deps, ["config"]);
  assert.equal(t.warnings.length, 1);
  assert.deepEqual(pullLeftBehind(r).conflicts, ["config/app.yaml"]);
});

Deno.test("a local file this cache never synced is set aside before the datastore's copy is taken", async () => {
  await using t = await setup();
  await t.cache.write("notes/a.txt", enc("copied in by hand"));
  await publish(t.store, { "notes/a.txt": "alpha" });
  const r = await pull(t.deps);
  assert.deepEqual(r.fetched, ["notes/a.txt"]);
  assert.equal(r.setAside.length, 1);
  assert.equal(text(await t.cache.read("notes/a.txt")), "alpha");
  assert.equal(text(await t.cache.read(r.setAside[0])), "copied in by hand");
});

Deno.test("an index naming a key outside the cache is refused before anything is written", async () => {
  await using t = await setup();
  await publish(t.store, { "notes/a.txt": "alpha" });
  const index = JSON.parse(text((await t.store.get(MONOLITH_KEY)).body)!);
  index.entries["../escape"] = index.entries["notes/a.txt"];
  await t.store.put(MONOLITH_KEY, enc(JSON.stringify(index)), PutModes.overwrite);
  await assert.rejects(pull(t.deps), UnsafePathError);
  assert.equal(t.cache.exists("notes/a.txt"), false);
});

Deno.test("each pull checks the directories it writes into again: one replaced by a link since the last pull is refused (left out, nothing written through it)", async () => {
  await using t = await setup();
  const outside = await Deno.makeTempDir({ prefix: "sluice-pull-outside-" });
  try {
    await publish(t.store, { "models/m1/a": "alpha" });
    assert.deepEqual((await pull(t.deps)).fetched, ["models/m1/a"]);
    await Deno.remove(`${t.dir}/models/m1`, { recursive: true });
    await Deno.symlink(outside, `${t.dir}/models/m1`);
    // models/m1/a is deleted there, models/m1/b new: neither is looked for through the link.
    await publish(t.store, { "models/m1/b": "beta" });
    const r = await pull(t.deps);
    assert.deepEqual(r.links, ["models/m1/b", "models/m1/a"]);
    assert.deepEqual([r.fetched, r.removed], [[], []]);
    assert.deepEqual(t.warnings.map((w) => w.code), ["path_skipped", "path_skipped"]);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(outside)), []);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a cold pull into missing directories takes every file; a file written just now is recorded without its mtime (racy: a walk hashes it)", async () => {
  await using t = await setup();
  const files: Record<string, string> = { "top.txt": "top" };
  for (let i = 0; i < 6; i++) files[`d/m${i % 2}/o${i}/1/raw`] = `file ${i}`;
  await publish(t.store, files);
  const r = await pull(t.deps);
  assert.deepEqual(r.fetched.sort(), Object.keys(files).sort());
  for (const [path, body] of Object.entries(files)) {
    assert.equal(text(await t.cache.read(path)), body);
    assert.equal(t.state.synced(path)?.mtimeMs, undefined);
    assert.equal(t.state.synced(path)?.size, body.length);
    // The file's ctime, which a walk compares (given to the second: its rename leaves it so, or moves it on one).
    const c = t.state.synced(path)?.ctimeMs;
    const now = (await t.cache.stat(path))?.ctimeMs;
    assert.ok(c !== undefined && now !== undefined && now - c <= 1000, `${c} against ${now}`);
  }
});

Deno.test("pullLeftBehind names the uncommitted and dropped paths with a reason", () => {
  assert.deepEqual(
    pullLeftBehind({
      fetched: [],
      removed: [],
      conflicts: [],
      setAside: [],
      uncommitted: ["a"],
      unreadable: [],
      dropped: ["b"],
      unchanged: false,
      bytes: 0,
    }),
    {
      conflicts: [],
      left: [
        {
          path: "a",
          reason:
            "another writer's push has not committed it yet (if that writer is gone for good, `sluice pull --adopt-uncommitted <path>` publishes the object it left as its change, and takes it)",
        },
        { path: "b", reason: DROPPED_REASON },
      ],
    },
  );
});

/** b synced `locked/notes.txt`, then a pushed a new version of it. */
async function changedThere() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "locked/notes.txt", "1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, "locked/notes.txt", "2");
  await a.pushChanged();
  return { store, a, b };
}

Deno.test("a path this process may not read is neither taken for a deletion nor fetched over: left out, said, and looked at again", async () => {
  const { b } = await changedThere();
  // b's copy sits under a directory b may not read (as chmod 000 makes it).
  const stat = b.cache.stat.bind(b.cache);
  b.cache.stat = (p: string) =>
    p === "locked/notes.txt" ? Promise.reject(new UnreadablePathError(p)) : stat(p);
  const warnings: string[] = [];
  b.events.on("warning", (w) => warnings.push(w.code));
  const r = await b.pullChanged();
  assert.deepEqual(r.unreadable, ["locked/notes.txt"]);
  assert.deepEqual(r.conflicts, [], "no conflict: nothing shows a deletion here");
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual(r.fetched, []);
  assert.deepEqual(warnings, ["path_skipped"]);
  assert.equal(pullLeftBehind(r).left[0]?.path, "locked/notes.txt");
  // Readable again: the next pull (not "already up to date") takes it up.
  b.cache.stat = stat;
  const again = await b.pullChanged();
  assert.deepEqual(again.fetched, ["locked/notes.txt"]);
  assert.equal(await read(b, "locked/notes.txt"), "2");
});

Deno.test("a file whose lstat works but whose read is refused (chmod 000 on the file) is left out too, not a conflict", async () => {
  const { b } = await changedThere();
  const hashFile = b.cache.hashFile.bind(b.cache);
  b.cache.hashFile = (p: string) =>
    p === "locked/notes.txt" ? Promise.reject(new UnreadablePathError(p)) : hashFile(p);
  const r = await b.pullChanged();
  assert.deepEqual(r.unreadable, ["locked/notes.txt"]);
  assert.deepEqual(b.conflicts(), []);
});

Deno.test("a remote deletion of a path unreadable here is left out and said; once readable, the next pull takes it", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "locked/notes.txt", "1");
  await put(a, "other.txt", "x");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/locked/notes.txt`);
  await a.markDirty({ relPath: "locked/notes.txt" });
  await a.pushChanged();
  const stat = b.cache.stat.bind(b.cache);
  b.cache.stat = (p: string) =>
    p === "locked/notes.txt" ? Promise.reject(new UnreadablePathError(p)) : stat(p);
  const r = await b.pullChanged();
  assert.deepEqual(r.unreadable, ["locked/notes.txt"]);
  assert.deepEqual(r.removed, []);
  b.cache.stat = stat;
  const again = await b.pullChanged();
  assert.deepEqual(again.removed, ["locked/notes.txt"]);
  assert.equal(await read(b, "locked/notes.txt"), undefined);
});

/**
 * b holds a copy of `notes/n.txt` it never synced, which a pushed with
 * other bytes, and synced `gone.txt`, which a deleted: b's next pull sets
 * its copy aside and removes `gone.txt`.
 */
async function setAsideAndRemoval() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "gone.txt", "x");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/gone.txt`);
  await a.markDirty({ relPath: "gone.txt" });
  await put(a, "notes/n.txt", "a's copy");
  await a.pushChanged();
  await put(b, "notes/n.txt", "b's copy, never synced", false);
  return { store, b };
}

for (
  const [where, breakIt] of [
    ["the removal of a file deleted remotely", (b: SyncService) => {
      const remove = b.cache.removeFile.bind(b.cache);
      b.cache.removeFile = (p, seen) =>
        p === "gone.txt"
          ? Promise.reject(new Deno.errors.PermissionDenied("refused by the test"))
          : remove(p, seen);
    }],
  ] as const
) {
  Deno.test(`a pull that fails in ${where}, after setting a local copy aside, still records the conflict naming it`, async () => {
    const { store, b } = await setAsideAndRemoval();
    breakIt(b);
    await assert.rejects(b.pullChanged(), /refused by the test/);
    // A fresh service over b's cache (as after the process ends) still names the copy.
    const again = await clone(store, "b", b.cacheDir);
    const recs = again.conflicts();
    assert.deepEqual(recs.map((c) => c.path), ["notes/n.txt"]);
    const aside = recs[0].mine?.location ?? "";
    assert.match(aside, /^\.sluice\/set-aside\//);
    assert.equal(await read(again, aside), "b's copy, never synced");
    // The next pull finishes the work, and the record stays until resolved.
    const next = await again.pullChanged();
    assert.equal(next.unchanged, false);
    assert.equal(await read(again, "notes/n.txt"), "a's copy");
    assert.equal(await read(again, "gone.txt"), undefined);
    assert.deepEqual(next.conflicts, ["notes/n.txt"]);
    assert.equal(again.conflicts()[0].mine?.location, aside);
  });
}

Deno.test("a pull that fails before fetching a path whose local copy it set aside puts the copy back, and records no conflict for it", async () => {
  const { store, b } = await setAsideAndRemoval();
  // The dirty marks are written after planning, before any fetch.
  b.state.markDirtyMany = () => Promise.reject(new Error("refused by the test"));
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  await assert.rejects(b.pullChanged(), /refused by the test/);
  assert.equal(await read(b, "notes/n.txt"), "b's copy, never synced");
  assert.deepEqual(warnings.map((w) => w.code), [], "no copy set aside to tell of");
  // A fresh service over b's cache (as after the process ends) has no conflict, nothing set aside.
  const again = await clone(store, "b", b.cacheDir);
  assert.deepEqual(again.conflicts(), []);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(`${b.cacheDir}/${STATE_DIR}/set-aside`)), []);
  // The next pull sets it aside and takes the datastore's copy.
  const next = await again.pullChanged();
  assert.equal(await read(again, "notes/n.txt"), "a's copy");
  assert.equal(await read(again, next.setAside[0]), "b's copy, never synced");
  assert.deepEqual(next.conflicts, ["notes/n.txt"]);
});

Deno.test("a symbolic link at a path this cache never synced is left as it is: the pull says it left the path out, and looks again next time", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/n.txt", "a's copy");
  await a.pushChanged();
  await Deno.mkdir(`${b.cacheDir}/notes`);
  await Deno.writeTextFile(`${b.cacheDir}/target.txt`, "the link's target");
  await Deno.symlink(`${b.cacheDir}/target.txt`, `${b.cacheDir}/notes/n.txt`);
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const r = await b.pullChanged();
  assert.ok((await Deno.lstat(`${b.cacheDir}/notes/n.txt`)).isSymlink, "the link stays a link");
  assert.deepEqual(r.links, ["notes/n.txt"]);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/target.txt`), "the link's target");
  assert.deepEqual(r.fetched, []);
  assert.deepEqual(r.setAside, []);
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual(warnings.map((w) => [w.code, w.path]), [["path_skipped", "notes/n.txt"]]);
  assert.match(warnings[0].message, /symbolic link/);
  assert.deepEqual(pullLeftBehind(r).left.map((l) => l.path), ["notes/n.txt"]);
  // No index token kept: the next pull looks at the path again.
  const again = await b.pullChanged();
  assert.equal(again.unchanged, false);
  assert.deepEqual(pullLeftBehind(again).left.map((l) => l.path), ["notes/n.txt"]);
});

for (const there of ["changed", "deleted"] as const) {
  Deno.test(`a synced file turned into a symbolic link is not a local deletion when the datastore ${there} it: left out and said`, async () => {
    const { a, b } = await bothSynced(new InMemoryStore(), "notes/n.txt", "1", "2");
    if (there === "deleted") {
      await Deno.remove(`${a.cacheDir}/notes/n.txt`);
      await a.markDirty({ relPath: "notes/n.txt" });
    }
    await a.pushChanged();
    await Deno.remove(`${b.cacheDir}/notes/n.txt`);
    await Deno.writeTextFile(`${b.cacheDir}/target.txt`, "the link's target");
    await Deno.symlink(`${b.cacheDir}/target.txt`, `${b.cacheDir}/notes/n.txt`);
    const r = await b.pullChanged();
    assert.deepEqual(r.conflicts, []);
    assert.deepEqual(b.conflicts(), [], "no conflict records a deletion here");
    assert.deepEqual(r.removed, []);
    assert.deepEqual(r.fetched, []);
    assert.deepEqual(r.links, ["notes/n.txt"]);
    assert.ok((await Deno.lstat(`${b.cacheDir}/notes/n.txt`)).isSymlink);
    assert.deepEqual(pullLeftBehind(r).left.map((l) => l.path), ["notes/n.txt"]);
    assert.equal((await b.pullChanged()).unchanged, false, "no index token kept");
  });
}
