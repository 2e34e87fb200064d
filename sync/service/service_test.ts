import assert from "node:assert/strict";
import { createSyncService, type SluicePlugin, type SyncServiceOptions } from "./service.ts";
import { FakeClock, InMemoryStore, writeAndMark } from "../../packages/testing/mod.ts";
import { SluiceError, UnsafePathError } from "../errors.ts";
import { INDEX_KEY } from "../transfer/remote_index.ts";
import type { CallOptions, ObjectStore } from "../ports.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(store: InMemoryStore, name: string, extra: Partial<SyncServiceOptions> = {}) {
  const cacheDir = await Deno.makeTempDir({ prefix: `sluice-${name}-` });
  return await createSyncService({
    cacheDir,
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
    ...extra,
  });
}

async function write(dir: string, path: string, text: string) {
  const file = `${dir}/${path}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
}

Deno.test("push then pull carries a file from one clone to another", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await write(a.cacheDir, "outputs/o.txt", "hello");
  await a.markDirty({ relPath: "outputs/o.txt" });
  const pushed = await a.pushChanged();
  assert.deepEqual(pushed.uploaded, ["outputs/o.txt"]);
  assert.equal(store.peekText("outputs/o.txt"), "hello");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.fetched, ["outputs/o.txt"]);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/outputs/o.txt`), "hello");
  assert.deepEqual(a.state.dirtyPaths(), []);
});

Deno.test("zero-diff push costs no request and zero-diff pull two (the meta and the index object)", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a.cacheDir, "x.txt", "x");
  await a.markDirty({ relPath: "x.txt" });
  await a.pushChanged();
  await a.pullChanged();
  store.resetLog();
  await a.pushChanged();
  assert.equal(store.count(), 0);
  await a.pullChanged();
  assert.deepEqual(store.log.map((r) => [r.op, r.key]), [
    ["get", "_index/_meta.json"],
    ["head", INDEX_KEY],
  ]);
});

Deno.test("after its own commit on the index it reflects, a pull does not read the index again; after a peer's it does", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await writeAndMark(a, "x.txt", "x");
  await a.pushChanged();
  await a.pullChanged(); // a now reflects the index
  await writeAndMark(a, "y.txt", "y");
  await a.pushChanged();
  store.resetLog();
  const quiet = await a.pullChanged();
  assert.equal(quiet.unchanged, true);
  assert.deepEqual(store.log.map((r) => [r.op, r.key]), [
    ["get", "_index/_meta.json"],
    ["head", INDEX_KEY],
  ]);
  // A peer commits between a's pull and a's next push: a's pull reads the index and takes it.
  await b.pullChanged();
  await writeAndMark(b, "z.txt", "z");
  await b.pushChanged();
  await writeAndMark(a, "w.txt", "w");
  await a.pushChanged();
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.fetched, ["z.txt"]);
});

Deno.test("a bulk markDirty walks and uploads only changed files", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (let i = 0; i < 5; i++) await write(a.cacheDir, `f/${i}.txt`, `v${i}`);
  await a.markDirty();
  assert.equal((await a.pushChanged()).uploaded.length, 5);
  await write(a.cacheDir, "f/2.txt", "changed");
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["f/2.txt"]);
  assert.equal(a.state.bulkPending(), false);
});

Deno.test("a dirty mark survives a crash between write and push", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a.cacheDir, "outputs/o.txt", "v1");
  await a.markDirty({ relPath: "outputs/o.txt" });
  // The process dies here: the service object is dropped without pushing.
  const again = await createSyncService({
    cacheDir: a.cacheDir,
    store,
    config: quick,
    clock: new FakeClock(),
  });
  assert.deepEqual(again.state.dirtyPaths(), ["outputs/o.txt"]);
  await again.pushChanged();
  assert.equal(store.peekText("outputs/o.txt"), "v1");
});

Deno.test("a failed push keeps the write dirty and a later push uploads it", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a.cacheDir, "o.txt", "v1");
  await a.markDirty({ relPath: "o.txt" });
  store.unreachable = true;
  await assert.rejects(a.pushChanged(), (e: Error & { code?: string }) => e.code === "unreachable");
  assert.deepEqual(a.state.dirtyPaths(), ["o.txt"]);
  store.heal();
  await a.pushChanged();
  assert.equal(store.peekText("o.txt"), "v1");
});

Deno.test("an unreadable dirty set means walk everything, never clean", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a.cacheDir, "o.txt", "v1");
  await Deno.mkdir(`${a.cacheDir}/.sluice`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/.sluice/dirty.log`, "{not json\n");
  const again = await createSyncService({
    cacheDir: a.cacheDir,
    store,
    config: quick,
    clock: new FakeClock(),
  });
  assert.equal(again.state.bulkPending(), true);
  await again.pushChanged();
  assert.equal(store.peekText("o.txt"), "v1");
});

Deno.test("a deleted dirty path becomes a remote delete and peers drop it", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await write(a.cacheDir, "o.txt", "v1");
  await a.markDirty({ relPath: "o.txt" });
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/o.txt`);
  await a.markDirty({ relPath: "o.txt" });
  assert.deepEqual((await a.pushChanged()).deleted, ["o.txt"]);
  assert.equal(store.peek("o.txt"), undefined);
  assert.deepEqual((await b.pullChanged()).removed, ["o.txt"]);
});

Deno.test("pull never overwrites a locally dirty file", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await write(a.cacheDir, "o.txt", "from a");
  await a.markDirty({ relPath: "o.txt" });
  await a.pushChanged();
  await write(b.cacheDir, "o.txt", "from b");
  await b.markDirty({ relPath: "o.txt" });
  const r = await b.pullChanged();
  assert.deepEqual(r.conflicts, ["o.txt"]);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/o.txt`), "from b");
});

Deno.test("pull refuses unsafe remote keys and writes nothing", async () => {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  store.seed("ok.txt", "fine");
  store.seed(
    INDEX_KEY,
    JSON.stringify({
      version: 1,
      entries: { "../escape": { key: "../escape", size: 1 }, "ok.txt": { key: "ok.txt", size: 4 } },
    }),
  );
  await assert.rejects(b.pullChanged(), UnsafePathError);
  await assert.rejects(Deno.stat(`${b.cacheDir}/ok.txt`));
});

Deno.test("markDirty rejects unsafe paths", async () => {
  const a = await clone(new InMemoryStore(), "a");
  for (const p of ["../x", "/etc/passwd", "a\\b", "a\0b", "a//b"]) {
    await assert.rejects(a.markDirty({ relPath: p }), UnsafePathError, p);
  }
});

Deno.test("a corrupted download is refused and nothing is written", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a.cacheDir, "o.txt", "12345");
  await a.markDirty({ relPath: "o.txt" });
  await a.pushChanged();
  // The same object version comes back truncated (a broken transfer).
  const truncating: ObjectStore = {
    endpoint: store.endpoint,
    get: async (key: string, o?: CallOptions) => {
      const r = await store.get(key, o);
      return key === "o.txt" ? { ...r, body: r.body.slice(0, 3) } : r;
    },
    head: (key, o) => store.head(key, o),
    put: (key, body, mode, o) => store.put(key, body, mode, o),
    delete: (key, o) => store.delete(key, o),
    list: (prefix, o) => store.list(prefix, o),
  };
  const b = await clone(store, "b", { store: truncating });
  await assert.rejects(
    b.pullChanged(),
    (e: Error & { code?: string }) => e.code === "corrupt_download",
  );
  await assert.rejects(Deno.stat(`${b.cacheDir}/o.txt`));
});

Deno.test("an object replaced behind the index (an uncommitted push) is never pulled", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await write(a.cacheDir, "o.txt", "committed");
  await a.markDirty({ relPath: "o.txt" });
  await a.pushChanged();
  store.seed("o.txt", "uncommitted"); // uploaded, but its writer never committed the index
  const warnings: string[] = [];
  const said: string[] = [];
  b.events.on("warning", (w) => {
    warnings.push(w.code);
    said.push(w.message);
  });
  const r = await b.pullChanged();
  assert.deepEqual(r.uncommitted, ["o.txt"]);
  assert.deepEqual(warnings, ["pull_skipped_uncommitted"]);
  // A fresh cache has no copy to keep: said so, not "the cached copy was kept".
  assert.match(said[0], /Nothing is at the path in the cache now/);
  await assert.rejects(Deno.stat(`${b.cacheDir}/o.txt`));
  // Still behind: the next pull looks again, not "already up to date".
  const again = await b.pullChanged();
  assert.equal(again.unchanged, false);
  assert.deepEqual(again.uncommitted, ["o.txt"]);
});

Deno.test("many files skipped as uncommitted: a warning each for the first ten, one for the rest", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  for (let i = 0; i < 25; i++) await write(a.cacheDir, `f${i}.txt`, "committed");
  await a.markDirty();
  await a.pushChanged();
  for (let i = 0; i < 25; i++) store.seed(`f${i}.txt`, "uncommitted");
  const warnings: { code: string; message: string }[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const r = await b.pullChanged();
  assert.equal(r.uncommitted.length, 25);
  assert.equal(warnings.length, 11);
  assert.ok(warnings.every((w) => w.code === "pull_skipped_uncommitted"));
  assert.match(warnings[10].message, /^15 more file\(s\) were skipped/);
});

Deno.test("progress events report files and bytes", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const seen: number[] = [];
  a.events.on("progress", (p) => seen.push(p.filesDone));
  // Written a minute ago: past the racy window, their mtimes are recorded (see `racyWindowMs`).
  const past = new Date(Date.now() - 60_000);
  for (let i = 0; i < 3; i++) {
    await write(a.cacheDir, `f${i}`, "x");
    await Deno.utime(`${a.cacheDir}/f${i}`, past, past);
    await a.markDirty({ relPath: `f${i}` });
  }
  await a.pushChanged();
  assert.deepEqual(seen, [1, 2, 3]);
  // A push of the whole cache first hashes what its walk found changed, and says so.
  const ops: string[] = [];
  a.events.on("progress", (p) => ops.push(`${p.op} ${p.filesDone}/${p.filesTotal}`));
  await write(a.cacheDir, "f0", "changed");
  await write(a.cacheDir, "f3", "new");
  await a.markDirty();
  await a.pushChanged();
  assert.deepEqual(ops, ["walk 1/2", "walk 2/2", "push 1/2", "push 2/2"]);
});

async function inode(file: string): Promise<number | null> {
  return (await Deno.stat(file)).ino;
}

Deno.test("a push or pull with nothing to do rewrites no state file", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await writeAndMark(a, "x.txt", "x");
  await a.pushChanged();
  await a.pullChanged();
  const manifest = `${a.cacheDir}/.sluice/manifest.json`;
  const journal = `${a.cacheDir}/.sluice/dirty.log`;
  const before = [await inode(manifest), await inode(journal)];
  await a.pushChanged();
  await a.pullChanged();
  // Each state file is replaced by a rename when written: the same inode means untouched.
  assert.deepEqual([await inode(manifest), await inode(journal)], before);
  const log = `${a.cacheDir}/.sluice/manifest.log`;
  const logBytes = async () => (await Deno.stat(log).catch(() => ({ size: 0 }))).size;
  const logBefore = await logBytes();
  await writeAndMark(a, "x.txt", "y");
  await a.pushChanged();
  // The change is appended to the manifest log; the journal of dirty marks is compacted.
  assert.ok(await logBytes() > logBefore);
  assert.notEqual(await inode(journal), before[1]);
  const again = await createSyncService({
    cacheDir: a.cacheDir,
    store,
    config: quick,
    clock: new FakeClock(),
  });
  assert.equal(again.state.synced("x.txt")?.size, 1);
  assert.deepEqual(again.state.dirtyPaths(), []);
});

Deno.test("a damaged manifest is replaced even by a push with nothing to upload", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await Deno.mkdir(`${a.cacheDir}/.sluice`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/.sluice/manifest.json`, "{damaged");
  const reopened = () =>
    createSyncService({ cacheDir: a.cacheDir, store, config: quick, clock: new FakeClock() });
  const b = await reopened();
  assert.equal(b.state.loadWarnings.length, 1);
  assert.equal((await b.pushChanged()).uploaded.length, 0);
  const c = await reopened();
  assert.deepEqual(c.state.loadWarnings, []);
  assert.equal(c.state.bulkPending(), false);
});

Deno.test("a walk hashes small, medium and chunked files alike", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  // Under the synchronous-read size, over it, and over one read chunk (1 MiB).
  const sizes = { "s.bin": 10, "m.bin": 100 * 1024, "l.bin": (1 << 20) + 3 };
  const bodies: Record<string, Uint8Array<ArrayBuffer>> = {};
  for (const [name, size] of Object.entries(sizes)) {
    bodies[name] = new Uint8Array(size).map((_, i) => (i * 7 + size) % 251);
    await Deno.writeFile(`${a.cacheDir}/${name}`, bodies[name]);
  }
  await a.markDirty();
  assert.deepEqual((await a.pushChanged()).uploaded.sort(), ["l.bin", "m.bin", "s.bin"]);
  for (const [name, body] of Object.entries(bodies)) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    assert.equal(a.state.synced(name)?.hash, hex, name);
    assert.equal(a.state.synced(name)?.size, body.length, name);
  }
  // A one-byte change at the end of each is found by the next walk, and only those.
  for (const name of ["m.bin", "l.bin"]) {
    bodies[name][bodies[name].length - 1] ^= 1;
    await Deno.writeFile(`${a.cacheDir}/${name}`, bodies[name]);
  }
  await a.markDirty();
  assert.deepEqual((await a.pushChanged()).uploaded.sort(), ["l.bin", "m.bin"]);
  assert.deepEqual(store.peek("l.bin"), bodies["l.bin"]);
});

Deno.test("a push reuses the index it last wrote only while the remote one is unchanged", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const indexed = () => Object.keys(JSON.parse(store.peekText(INDEX_KEY)!).entries).sort();
  const push = async (svc: typeof a, path: string) => {
    await writeAndMark(svc, path, path);
    await svc.pushChanged();
  };
  await push(a, "x.txt");
  await push(b, "y.txt");
  // An endpoint that ignores preconditions would not catch a stale index:
  // only the HEAD before reusing the held copy keeps B's entry.
  store.conditionalMode = "ignore";
  await push(a, "z.txt");
  assert.deepEqual(indexed(), ["x.txt", "y.txt", "z.txt"]);
  store.conditionalMode = "honour";
  store.resetLog();
  await push(a, "w.txt");
  const indexGets = store.log.filter((r) => r.op === "get" && r.key === INDEX_KEY);
  assert.equal(indexGets.length, 0, "the unchanged index is not downloaded again");
  assert.deepEqual(indexed(), ["w.txt", "x.txt", "y.txt", "z.txt"]);
  // A failed index write leaves nothing stale: the next push reads it again.
  store.failNext("put", 1, undefined, { match: (k) => k === INDEX_KEY });
  await writeAndMark(a, "v.txt", "v");
  await assert.rejects(a.pushChanged());
  await push(b, "u.txt");
  await a.pushChanged();
  assert.deepEqual(indexed(), ["u.txt", "v.txt", "w.txt", "x.txt", "y.txt", "z.txt"]);
});

Deno.test("a directory checked by one push and swapped for a link before the next is refused by that push", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const outside = await Deno.makeTempDir({ prefix: "sluice-outside-" });
  try {
    await Deno.mkdir(`${outside}/b`);
    await Deno.writeTextFile(`${outside}/b/f.txt`, "outside the cache");
    await write(a.cacheDir, "data/a/b/f.txt", "v1");
    await write(a.cacheDir, "data/a/b/g.txt", "g");
    await a.markDirty({ relPaths: ["data/a/b/f.txt", "data/a/b/g.txt"] });
    assert.deepEqual((await a.pushChanged()).uploaded, ["data/a/b/f.txt", "data/a/b/g.txt"]);

    // data/a, then checked, becomes a link to a directory out of the cache.
    await Deno.remove(`${a.cacheDir}/data/a`, { recursive: true });
    await Deno.symlink(outside, `${a.cacheDir}/data/a`);
    await a.markDirty({ relPath: "data/a/b/f.txt" });
    const r = await a.pushChanged();
    assert.deepEqual(r.uploaded, []);
    assert.deepEqual(r.deleted, [], "a path under a link is not a deletion");
    assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [["data/a/b/f.txt", true]]);
    assert.match(r.skipped[0].reason, /symbolic link/);
    assert.equal(store.peekText("data/a/b/f.txt"), "v1", "nothing read through the link");
    assert.deepEqual(a.state.dirtyPaths(), ["data/a/b/f.txt"]);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a plugin's gate placed before a gate that is not there (a misspelt anchor) is refused when the service is created, not at its first push", async () => {
  const store = new InMemoryStore();
  const plugin: SluicePlugin = {
    name: "audit-plugin",
    setup({ push }) {
      push.add({
        name: "audit",
        before: "lock-fense",
        middleware: async (_ctx, next) => await next(),
      });
    },
  };
  await assert.rejects(
    clone(store, "a", { plugins: [plugin] }),
    (e: unknown) =>
      e instanceof SluiceError && e.code === "invalid_config" &&
      e.message.includes('"lock-fense"') &&
      e.message.includes("audit-plugin"),
  );
});
