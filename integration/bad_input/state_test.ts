/**
 * Bad input, sync state files: corrupted and unreadable state files lose no
 * local change. See `sandbox.ts` for the sandbox every test runs in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { PROBE_STATE_FILE } from "../../sync/transfer/conditional.ts";
import { ERASURE_JOURNAL } from "../../middleware/erasure.ts";
import { PENDING_LOCKFILE_STATE } from "../../sync/locks/lockfile_txn.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, enc, pushPaths, put, read, refused, sandbox, warnings } from "./sandbox.ts";

Deno.test("state: a corrupted dirty set turns into a walk; no local change is lost, even across a pull", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, `${sb.root}/peer`);
  const b = await clone(store, sb.cacheDir, { name: "b" });
  await put(a.cacheDir, "outputs/o.txt", "v1");
  await pushPaths(a, "outputs/o.txt");
  await b.pullChanged();
  // b edits and marks; then its dirty set is damaged (the mark is lost) ...
  await put(sb.cacheDir, "outputs/o.txt", "b's edit");
  await put(sb.cacheDir, "outputs/p.txt", "b's new file");
  await b.markDirty({ relPaths: ["outputs/o.txt", "outputs/p.txt"] });
  await Deno.writeFile(
    `${sb.cacheDir}/.sluice/dirty.log`,
    Uint8Array.from([0xff, 0xfe, 0x00, ...enc("garbage\n")]),
  );
  // ... while the peer publishes a newer copy of the same file.
  await put(a.cacheDir, "outputs/o.txt", "a's v2");
  await pushPaths(a, "outputs/o.txt");

  const w = warnings();
  const b2 = await clone(store, sb.cacheDir, { name: "b", events: w.events });
  assert.deepEqual(w.codes(), ["state_unreadable"]);
  assert.match(w.list[0].message, /dirty set has an unreadable line: walking everything/);
  const pulled = await b2.pullChanged();
  assert.deepEqual(
    pulled.conflicts,
    ["outputs/o.txt"],
    "the local edit is a conflict, not overwritten",
  );
  assert.equal(await read(sb.cacheDir, "outputs/o.txt"), "b's edit");
  // The push publishes the new file and leaves the conflict to its resolution.
  const pushed = await b2.pushChanged();
  assert.deepEqual(pushed.uploaded.sort(), ["outputs/p.txt"]);
  assert.deepEqual(pushed.conflicts, ["outputs/o.txt"]);
  assert.equal(store.peekText("outputs/o.txt"), "a's v2", "the peer's copy is not overwritten");
  assert.equal(store.peekText("outputs/p.txt"), "b's new file");
  // Keeping mine publishes b's edit over the version b has now seen.
  await b2.resolveConflict("outputs/o.txt", "mine");
  assert.equal(store.peekText("outputs/o.txt"), "b's edit");
  await b2.pushChanged();
  assert.equal(b2.state.bulkPending(), false);
  const journal = (await read(sb.cacheDir, ".sluice/dirty.log")) ?? "";
  // Compacted clean: its generation line alone.
  assert.match(journal, /^(#\w+\n)?$/, "compacted clean");
  await sb.unchanged();
});

Deno.test("state: a dirty set torn mid-append turns into a walk that pushes the torn mark's file", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  await put(sb.cacheDir, "x.txt", "x");
  await put(sb.cacheDir, "y.txt", "y");
  await Deno.mkdir(`${sb.cacheDir}/.sluice`);
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/dirty.log`, '"x.txt"\n"y.t');
  const w = warnings();
  const a2 = await clone(store, a.cacheDir, { events: w.events });
  assert.deepEqual(w.codes(), ["state_unreadable"]);
  assert.deepEqual((await a2.pushChanged()).uploaded.sort(), ["x.txt", "y.txt"]);
  await sb.unchanged();
});

Deno.test("state: a corrupted manifest turns into a walk; no local change is lost", async () => {
  const manifests: [string, string, string][] = [
    ["garbage", "manifest.json", "{ not json"],
    ["an unknown format", "manifest.json", JSON.stringify({ format: 9, entries: {} })],
    ["entries null", "manifest.json", JSON.stringify({ format: 1, entries: null })],
    [
      "an entry with a numeric hash",
      "manifest.json",
      JSON.stringify({ format: 1, entries: { "o.txt": { h: 1, v: "v" } } }),
    ],
    // The log of changes since the base, of a generation past it (a damaged
    // line of it is passed over: the next test).
    ["a log line newer than its base", "manifest.log", '{"g":7,"p":"o.txt"}\n'],
  ];
  for (const [what, file, text] of manifests) {
    const sb = await sandbox();
    const store = new InMemoryStore();
    const a = await clone(store, sb.cacheDir);
    const peer = await clone(store, `${sb.root}/peer`, { name: "peer" });
    await put(sb.cacheDir, "o.txt", "o");
    await put(sb.cacheDir, "p.txt", "p");
    await put(sb.cacheDir, "q.txt", "q");
    await pushPaths(a, "o.txt", "p.txt", "q.txt");
    await put(sb.cacheDir, "p.txt", "p edited");
    await a.markDirty({ relPath: "p.txt" });
    // The peer publishes newer copies: p.txt (edited here too) and q.txt (stale here).
    await peer.pullChanged();
    await put(peer.cacheDir, "p.txt", "peer's p");
    await put(peer.cacheDir, "q.txt", "peer's q");
    await pushPaths(peer, "p.txt", "q.txt");
    await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${file}`, text);

    const w = warnings();
    const a2 = await clone(store, sb.cacheDir, { events: w.events });
    assert.deepEqual(w.codes(), ["state_unreadable"], what);
    assert.match(w.list[0].message, /synced manifest unreadable .*walking everything/, what);
    const pulled = await a2.pullChanged();
    // The dirty edit is kept as a conflict. Without a manifest entry an unchanged file
    // cannot be told from a stale one: an identical o.txt is recorded as synced; the
    // stale q.txt is set aside (kept, never pushed back over the peer's), the peer's copy
    // is fetched, and the set-aside copy is a conflict too.
    assert.deepEqual(
      pulled.conflicts.sort(),
      ["p.txt", "q.txt"],
      `${what}: the dirty edit is kept`,
    );
    assert.deepEqual(pulled.fetched.sort(), ["q.txt"], what);
    assert.equal(pulled.setAside.length, 1, what);
    assert.equal(await read(sb.cacheDir, pulled.setAside[0]), "q", what);
    assert.equal(await read(sb.cacheDir, "p.txt"), "p edited", what);
    assert.equal(await read(sb.cacheDir, "q.txt"), "peer's q", what);
    const pushed = await a2.pushChanged();
    assert.deepEqual(pushed.uploaded, [], `${what}: conflicts wait for their resolution`);
    assert.equal(store.peekText("p.txt"), "peer's p", what);
    await a2.resolveConflict("p.txt", "mine");
    await a2.resolveConflict("q.txt", "theirs");
    await a2.pushChanged();
    assert.equal(store.peekText("p.txt"), "p edited", what);
    assert.equal(store.peekText("o.txt"), "o", what);
    assert.equal(store.peekText("q.txt"), "peer's q", what);
    assert.deepEqual(a2.state.dirtyPaths(), [], what);
    assert.equal(JSON.parse(await read(sb.cacheDir, ".sluice/manifest.json")).format, 1, what);
    await sb.unchanged();
  }
});

Deno.test("state: a damaged line in the synced manifest's log loses that line's record only: the open says so, and no change of this cache's or of a peer's is lost", async () => {
  for (const damage of ["garbage", '{"g":0,"p":"p.txt","e":{"h":1,"v":"v"}}']) {
    const sb = await sandbox();
    const store = new InMemoryStore();
    const a = await clone(store, sb.cacheDir);
    const peer = await clone(store, `${sb.root}/peer`, { name: "peer" });
    for (const f of ["o.txt", "p.txt", "q.txt"]) {
      await put(sb.cacheDir, f, f[0]);
      await pushPaths(a, f);
    }
    await put(sb.cacheDir, "o.txt", "o edited");
    await a.markDirty({ relPath: "o.txt" });
    await peer.pullChanged();
    await put(peer.cacheDir, "q.txt", "peer's q");
    await pushPaths(peer, "q.txt");
    // p.txt's record, written to the log by its push, is damaged on disk.
    const log = `${sb.cacheDir}/.sluice/manifest.log`;
    const lines = (await Deno.readTextFile(log)).split("\n");
    const at = lines.findIndex((l) => l.includes('"p":"p.txt"'));
    assert.ok(at >= 0 && at < lines.length - 2, "p.txt's record is a log line, not the last");
    lines[at] = damage;
    await Deno.writeTextFile(log, lines.join("\n"));

    const w = warnings();
    const a2 = await clone(store, sb.cacheDir, { events: w.events });
    assert.deepEqual(w.codes(), ["state_unreadable"], damage);
    assert.match(w.list[0].message, new RegExp(`line ${at + 1} of its log .* damaged`), damage);
    assert.equal(a2.state.bulkPending(), false, "no walk: the other records are kept");
    const pulled = await a2.pullChanged();
    // q.txt, synced here and unchanged, takes the peer's copy; p.txt, its
    // record lost, holds the datastore's bytes: recorded as synced again.
    assert.deepEqual(pulled.conflicts, [], damage);
    assert.deepEqual(pulled.fetched, ["q.txt"], damage);
    assert.equal(await read(sb.cacheDir, "q.txt"), "peer's q", damage);
    assert.equal(a2.state.synced("p.txt")?.version, (await store.head("p.txt"))?.version, damage);
    const pushed = await a2.pushChanged();
    assert.deepEqual(pushed.uploaded, ["o.txt"], damage);
    assert.equal(store.peekText("o.txt"), "o edited", damage);
    assert.equal(store.peekText("p.txt"), "p", damage);
    assert.equal(store.peekText("q.txt"), "peer's q", damage);
    // A base was written over the damaged log: the next open reads it whole.
    const w3 = warnings();
    const a3 = await clone(store, sb.cacheDir, { events: w3.events });
    assert.deepEqual(w3.codes(), [], damage);
    assert.deepEqual(a3.state.syncedPaths().sort(), ["o.txt", "p.txt", "q.txt"], damage);
    await sb.unchanged();
  }
});

Deno.test("state: an unreadable state file warns on open; writing it fails with a coded error and loses nothing", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  await put(sb.cacheDir, "o.txt", "v1");
  await pushPaths(a, "o.txt");
  await put(sb.cacheDir, "o.txt", "v2");
  // The dirty set is replaced by something that cannot be read as a file.
  await Deno.remove(`${sb.cacheDir}/.sluice/dirty.log`);
  await Deno.mkdir(`${sb.cacheDir}/.sluice/dirty.log`);

  const w = warnings();
  const a2 = await clone(store, sb.cacheDir, { events: w.events });
  assert.deepEqual(w.codes(), ["state_unreadable"]);
  assert.match(w.list[0].message, /dirty set unreadable .*walking everything/);
  const state = /Could not write the sync state file .*\.sluice\/dirty\.log/;
  const todo = /then push the whole cache .*markDirty\(\) with no path and a push/;
  await refused(a2.markDirty({ relPath: "o.txt" }), "internal", state, todo);
  // The walk records what it is about to write before writing it: it stops there, having written nothing.
  await refused(a2.pushChanged(), "internal", state, todo);
  assert.equal(store.peekText("o.txt"), "v1", "nothing was written");
  assert.equal(await read(sb.cacheDir, "o.txt"), "v2");

  // After the file is repaired, a fresh start pushes the change.
  await Deno.remove(`${sb.cacheDir}/.sluice/dirty.log`);
  const a3 = await clone(store, sb.cacheDir);
  await a3.markDirty();
  assert.deepEqual((await a3.pushChanged()).uploaded, ["o.txt"]);
  assert.equal(store.peekText("o.txt"), "v2");
  await a3.markDirty();
  assert.deepEqual((await a3.pushChanged()).uploaded, [], "nothing left to push");
  await sb.unchanged();
});

Deno.test("state: a corrupted erasure journal fails pushes closed; corrupted probe and lockfile caches are tolerated", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  await put(sb.cacheDir, "o.txt", "o");
  await Deno.mkdir(`${sb.cacheDir}/.sluice`, { recursive: true });
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${ERASURE_JOURNAL}`, "{ torn");
  await a.markDirty({ relPath: "o.txt" });
  await refused(
    a.pushChanged(),
    "internal",
    /The sync state file .*erasure.* is corrupted/,
    /run the command again/,
  );
  assert.deepEqual(store.keys("o"), [], "nothing was pushed");
  assert.deepEqual(a.state.dirtyPaths(), ["o.txt"]);
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${ERASURE_JOURNAL}`, '{"format": 7}');
  await refused(
    a.pushChanged(),
    "internal",
    /erasure journal .* is malformed\. Nothing was pushed/,
    /run the sync again/,
  );
  assert.deepEqual(a.state.dirtyPaths(), ["o.txt"]);

  await Deno.remove(`${sb.cacheDir}/.sluice/${ERASURE_JOURNAL}`);
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${PROBE_STATE_FILE}`, "\u0000junk");
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${PENDING_LOCKFILE_STATE}`, "[[[");
  const a2 = await clone(store, sb.cacheDir);
  assert.deepEqual((await a2.pushChanged()).uploaded, ["o.txt"]);
  assert.deepEqual(a2.state.dirtyPaths(), []);
  await sb.unchanged();
});

Deno.test("state: a file where the state directory belongs is refused before anything is read, pushed or pulled", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  await put(sb.cacheDir, "outputs/o.txt", "v1");
  await pushPaths(a, "outputs/o.txt");
  await put(sb.cacheDir, "outputs/o.txt", "an edit");
  await Deno.remove(`${sb.cacheDir}/.sluice`, { recursive: true });
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice`, "not a directory");
  const calls = store.count();
  const e = await refused(
    clone(store, sb.cacheDir),
    "cache_unwritable",
    /\.sluice is not a directory.*Nothing was read, pushed or pulled/,
    /mv .*\.sluice\b.* .*\.sluice-moved/,
  );
  assert.equal(e.exitCode, 73);
  assert.equal(store.count(), calls, "no store call");
  assert.equal(await read(sb.cacheDir, "outputs/o.txt"), "an edit");
  assert.equal(await read(sb.cacheDir, ".sluice"), "not a directory");
  await sb.unchanged();
});
