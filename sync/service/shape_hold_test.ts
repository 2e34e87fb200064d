/**
 * A pull that could not place a path of the datastore's because this
 * cache's own file (never synced) is in its way tells so, and the next push
 * holds that file back: publishing it would leave the datastore holding a
 * file and files under a directory of one name, which no cache can pull
 * whole. A resolution that would publish such a copy is refused the same way.
 */
import assert from "node:assert/strict";
import { peerPush } from "../../packages/testing/layout_peer.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { pushLeftBehind } from "./push_result.ts";
import { assertIndexCurrent, clone, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";

const retry = quick.retry;

/**
 * `alice` published `peer` (with `peerText`); `bob` has a path of his own,
 * `own` (never pushed; marked dirty unless `mark` is false).
 */
async function peerThenOwn(
  peer: string,
  peerText: string,
  own: string,
  ownText: string,
  mark = true,
) {
  const store = new InMemoryStore();
  const alice = await clone(store, "alice");
  await put(alice, peer, peerText);
  await alice.pushChanged();
  const bob = await clone(store, "bob");
  await put(bob, own, ownText, mark);
  return { store, alice, bob };
}

/** `alice` published `notes/clash/f.txt`; `bob` has a file of his own at `notes/clash`. */
const ownFileInTheWay = (mark = true) =>
  peerThenOwn("notes/clash/f.txt", "alice's", "notes/clash", "bob's own", mark);

Deno.test("a file of this cache's own in the way of the datastore's files under its name: the pull says so, the push holds it back, and a move clears the way", async () => {
  const { store, bob } = await peerThenOwn(
    "notes/clash/f.txt",
    "alice's",
    "notes/clash",
    "bob's own, never pushed",
  );
  const warnings: { code: string; message: string }[] = [];
  bob.events.on("warning", (w) => void warnings.push(w));
  const pulled = await bob.pullChanged();
  assert.deepEqual(pulled.blocked, ["notes/clash/f.txt"]);
  const told = warnings.find((w) => w.code === "path_blocked")!;
  assert.match(told.message, /this cache's own \(the datastore does not hold it/);
  assert.match(told.message, /In the way here: notes\/clash\./);
  assert.doesNotMatch(told.message, /holds both a file and files under a directory/);

  const pushed = await bob.pushChanged();
  assert.deepEqual(pushed.uploaded, []);
  const held = pushed.skipped.find((s) => s.path === "notes/clash")!;
  assert.ok(held.keepDirty, "it stays marked");
  assert.match(held.reason, /the datastore holds files under a directory notes\/clash/);
  assert.equal(pushLeftBehind(pushed).left[0]?.path, "notes/clash", "left behind: not a success");
  assert.deepEqual(store.keys("notes"), ["notes/clash/f.txt"], "nothing was uploaded");
  const index = await readIndex(store, retry);
  assert.deepEqual(Object.keys(index?.entries ?? {}).sort(), ["notes/clash/f.txt"]);
  assert.ok(bob.state.dirtyPaths().includes("notes/clash"));
  // Status tells the same before any push.
  const status = await bob.status();
  assert.equal(status.find((e) => e.path === "notes/clash")?.action, "skip");

  // Moved to another name: the pull fetches theirs, the push publishes bob's.
  await Deno.rename(`${bob.cacheDir}/notes/clash`, `${bob.cacheDir}/notes/clash.bob`);
  await bob.markDirty({ relPaths: ["notes/clash", "notes/clash.bob"] });
  const again = await bob.pullChanged();
  assert.deepEqual(again.blocked, []);
  assert.equal(await read(bob, "notes/clash/f.txt"), "alice's");
  const published = await bob.pushChanged();
  assert.deepEqual(published.uploaded, ["notes/clash.bob"]);
  assert.deepEqual(store.keys("notes"), ["notes/clash.bob", "notes/clash/f.txt"]);
});

Deno.test("the other way round: files under a directory of this cache's own where the datastore holds a file of that name are held back", async () => {
  const { store, bob } = await peerThenOwn(
    "logs/old",
    "a file",
    "logs/old/new.txt",
    "under bob's directory",
  );
  const pulled = await bob.pullChanged();
  assert.deepEqual(pulled.blocked, ["logs/old"]);
  const pushed = await bob.pushChanged();
  assert.deepEqual(pushed.uploaded, []);
  assert.match(
    pushed.skipped.find((s) => s.path === "logs/old/new.txt")!.reason,
    /the datastore holds a file logs\/old, which the last pull could not place here/,
  );
  assert.deepEqual(store.keys("logs"), ["logs/old"]);
});

Deno.test("without a pull that told of the other shape, the commit still finds it in the index: the second of two caches that never saw each other's leaves its own out, told and kept marked", async () => {
  const { bob } = await peerThenOwn(
    "notes/clash/f.txt",
    "alice's",
    "notes/clash",
    "bob's",
  );
  const pushed = await bob.pushChanged();
  assert.deepEqual(pushed.uploaded, []);
  assert.ok(pushed.skipped.some((s) => s.path === "notes/clash" && s.keepDirty));
  assert.deepEqual(bob.state.blocked.paths(), ["notes/clash/f.txt"]);
});

Deno.test("resolve --mine of a copy the datastore's files under its name are blocked by is refused (unsafe_path), nothing changed; --theirs takes their files and sets the copy aside", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/p", "first");
  await a.pushChanged();
  await b.pullChanged();
  // a replaces the file by a directory of its name; b changes the file meanwhile.
  await Deno.remove(`${a.cacheDir}/notes/p`);
  await put(a, "notes/p/x.txt", "a's directory", false);
  await a.markDirty({ relPath: "notes/p" });
  await a.pushChanged();
  await put(b, "notes/p", "b's change");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.blocked, ["notes/p/x.txt"]);
  assert.ok(b.conflicts().some((c) => c.path === "notes/p"), "the deletion met b's change");
  await assert.rejects(
    b.resolveConflict("notes/p", "mine"),
    (e: Error & { code?: string }) =>
      e.code === "unsafe_path" && /files under a directory of that name/.test(e.message) &&
      /Nothing was changed/.test(e.message),
  );
  assert.deepEqual(store.keys("notes"), ["notes/p/x.txt"], "nothing published");
  assert.ok(b.conflicts().some((c) => c.path === "notes/p"), "the conflict stays open");
  const theirs = await b.resolveConflict("notes/p", "theirs");
  assert.ok(theirs.resolved);
  assert.equal(theirs.setAside.length, 1, "b's copy is set aside, never deleted");
  assert.equal(await read(b, "notes/p/x.txt"), "a's directory");
});

Deno.test("a record that went stale (the blocked path deleted by this cache's own push) is cleared by the next whole pull, whatever the index token says", async () => {
  const store = new InMemoryStore();
  const alice = await clone(store, "alice");
  await put(alice, "a/b", "alice's");
  await alice.pushChanged();
  const bob = await clone(store, "bob");
  await bob.pullChanged(); // a whole pull that skips nothing keeps the index token
  await Deno.remove(`${bob.cacheDir}/a`, { recursive: true });
  await put(bob, "a", "bob's own", false);
  await bob.pullChanged({ prefixes: ["a"], restoreDeleted: true });
  assert.deepEqual(bob.state.blocked.paths(), ["a/b"]);
  // bob moves his file away and deletes a/b on the datastore: his commit keeps the token current.
  await Deno.rename(`${bob.cacheDir}/a`, `${bob.cacheDir}/a.bob`);
  await bob.markDirty({ relPaths: ["a", "a/b", "a.bob"] });
  await bob.pushChanged();
  assert.deepEqual(store.keys("a"), ["a.bob"]);
  const again = await bob.pullChanged();
  assert.equal(again.unchanged, false, "the index is read while a path is recorded");
  assert.deepEqual(bob.state.blocked.paths(), []);
  await put(bob, "a", "bob's file again");
  assert.deepEqual((await bob.pushChanged()).uploaded, ["a"]);
});

Deno.test("a pull of a prefix written with a trailing slash replaces what it covers in the record", async () => {
  const { bob } = await ownFileInTheWay();
  await bob.pullChanged();
  assert.deepEqual(bob.state.blocked.paths(), ["notes/clash/f.txt"]);
  await Deno.rename(`${bob.cacheDir}/notes/clash`, `${bob.cacheDir}/notes/clash.bob`);
  await bob.pullChanged({ prefixes: ["notes/"] });
  assert.deepEqual(bob.state.blocked.paths(), []);
});

Deno.test("where the datastore holds both shapes already, nothing is held back: an edit of a synced file under the directory goes through", async () => {
  const store = new InMemoryStore();
  const alice = await clone(store, "alice");
  await put(alice, "notes/clash/f.txt", "alice's");
  await alice.pushChanged();
  const carol = await clone(store, "carol");
  await carol.pullChanged();
  // An old client, which checks nothing, makes both shapes.
  await peerPush(store, { "notes/clash": "bob's" });
  const warnings: string[] = [];
  carol.events.on("warning", (w) => void warnings.push(w.message));
  const pulled = await carol.pullChanged();
  assert.deepEqual(pulled.blocked, ["notes/clash"]);
  assert.match(warnings.join("\n"), /holds both a file and files under a directory/);
  assert.deepEqual(carol.state.blocked.paths(), [], "not this cache's own shape: nothing recorded");
  await put(carol, "notes/clash/f.txt", "carol's edit");
  assert.deepEqual((await carol.pushChanged()).uploaded, ["notes/clash/f.txt"]);
});

Deno.test("a file a walk push holds back keeps the cache marked for a walk: once the way is clear, the next push publishes it", async () => {
  const { alice, bob } = await ownFileInTheWay(false);
  await bob.pullChanged();
  await bob.markDirty(); // a walk
  const walked = await bob.pushChanged();
  assert.ok(walked.skipped.some((s) => s.path === "notes/clash" && s.keepDirty));
  assert.ok(bob.state.bulkPending(), "the walk's mark stays");
  assert.ok(!bob.state.dirtyPaths().includes("notes/clash"), "no mark of its name");
  // alice deletes her files; bob's next pull finds the way clear.
  await Deno.remove(`${alice.cacheDir}/notes/clash`, { recursive: true });
  await alice.markDirty({ relPath: "notes/clash" });
  await alice.pushChanged();
  await bob.pullChanged();
  assert.deepEqual((await bob.pushChanged()).uploaded, ["notes/clash"]);
});

Deno.test("what a walk held back leaves no mark that a directory of theirs of that name takes later: a walk never deletes there", async () => {
  const store = new InMemoryStore();
  const alice = await clone(store, "alice");
  await put(alice, "notes/clash/f.txt", "f");
  await put(alice, "notes/clash/g.txt", "g");
  await alice.pushChanged();
  const bob = await clone(store, "bob");
  await put(bob, "notes/clash", "bob's own", false);
  await bob.pullChanged();
  await bob.markDirty();
  await bob.pushChanged(); // held back
  await Deno.rename(`${bob.cacheDir}/notes/clash`, `${bob.cacheDir}/notes/clash.bob`);
  await bob.pullChanged();
  assert.equal(await read(bob, "notes/clash/g.txt"), "g");
  await Deno.remove(`${bob.cacheDir}/notes/clash/g.txt`);
  await bob.markDirty();
  const r = await bob.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/clash.bob"]);
  assert.deepEqual(r.deleted, [], "a walk never deletes on the datastore");
  assert.deepEqual(r.localDeletions, ["notes/clash/g.txt"]);
  assert.ok(store.keys("notes").includes("notes/clash/g.txt"));
});

Deno.test("the way out for files under a directory of this cache's own names the directory", async () => {
  const { bob } = await peerThenOwn(
    "logs/old",
    "a file",
    "logs/old/new.txt",
    "bob's",
  );
  await bob.pullChanged();
  const r = await bob.pushChanged();
  assert.match(
    r.skipped.find((s) => s.path === "logs/old/new.txt")!.reason,
    /Move the directory logs\/old \(with everything in it\) to another name/,
  );
});

Deno.test("a walk never publishes a shape beside the synced one it replaced and leaves: the files of a directory that replaced a synced file wait for a push of its name", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/a", "a file");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/notes/a`);
  await put(a, "notes/a/b.txt", "under a directory", false);
  await a.markDirty(); // a walk
  const walked = await a.pushChanged();
  assert.deepEqual(walked.uploaded, []);
  assert.deepEqual(walked.localDeletions, ["notes/a"]);
  assert.match(
    walked.skipped.find((s) => s.path === "notes/a/b.txt")!.reason,
    /Push notes\/a by its name \(`sluice push notes\/a`\)/,
  );
  assert.deepEqual(store.keys("notes"), ["notes/a"], "no clash made");
  assert.ok(a.state.bulkPending(), "the walk's mark stays");
  await a.markDirty({ relPath: "notes/a" });
  const named = await a.pushChanged();
  assert.deepEqual(named.deleted, ["notes/a"]);
  assert.deepEqual(named.uploaded, ["notes/a/b.txt"]);
  assert.deepEqual(store.keys("notes"), ["notes/a/b.txt"]);
});

Deno.test("a walk holds back a file that replaced a synced directory whose files it leaves on the datastore", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/d/x.txt", "x");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/notes/d`, { recursive: true });
  await put(a, "notes/d", "a file now", false);
  await a.markDirty();
  const walked = await a.pushChanged();
  assert.deepEqual(walked.uploaded, []);
  assert.deepEqual(walked.localDeletions, ["notes/d/x.txt"]);
  assert.match(walked.skipped.find((s) => s.path === "notes/d")!.reason, /sluice push notes\/d/);
  assert.deepEqual(store.keys("notes"), ["notes/d/x.txt"]);
  await a.markDirty({ relPath: "notes/d" });
  const named = await a.pushChanged();
  assert.deepEqual(named.deleted, ["notes/d/x.txt"]);
  assert.deepEqual(named.uploaded, ["notes/d"]);
});

Deno.test("a held-back file moved away before the next push: its name is nothing to push, and said so", async () => {
  const { bob } = await peerThenOwn("rep/r1.txt", "alice's", "rep", "bob's own");
  await bob.pullChanged();
  await bob.pushChanged(); // held back, kept marked
  await Deno.rename(`${bob.cacheDir}/rep`, `${bob.cacheDir}/rep.mine`);
  await bob.markDirty({ relPath: "rep.mine" });
  const r = await bob.pushChanged();
  assert.deepEqual(r.uploaded, ["rep.mine"]);
  const rep = r.skipped.find((s) => s.path === "rep")!;
  assert.equal(rep.keepDirty, false);
  assert.match(rep.reason, /nothing is at it in the cache and this cache never synced it/);
  assert.deepEqual(bob.state.dirtyPaths(), []);
});

/** `a` synced the file `notes/a`, then replaced it here by a directory holding `b.txt` (not marked). */
async function fileReplacedByDirectory() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/a", "a file");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/notes/a`);
  await put(a, "notes/a/b.txt", "under a directory", false);
  return { store, a };
}

Deno.test("a file named to a push under a directory that replaced a synced file is held back until that name is pushed", async () => {
  const { store, a } = await fileReplacedByDirectory();
  await a.markDirty({ relPath: "notes/a/b.txt" });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.match(
    r.skipped.find((s) => s.path === "notes/a/b.txt")!.reason,
    /Push notes\/a by its name \(`sluice push notes\/a`\)/,
  );
  assert.deepEqual(store.keys("notes"), ["notes/a"], "no clash made");
  assert.ok(a.state.dirtyPaths().includes("notes/a/b.txt"), "it stays marked");
});

Deno.test("a marked directory above a directory that replaced a synced file deletes that file with the new files published", async () => {
  const { store, a } = await fileReplacedByDirectory();
  await a.markDirty({ relPath: "notes" });
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted, ["notes/a"]);
  assert.deepEqual(r.uploaded, ["notes/a/b.txt"]);
  assert.deepEqual(store.keys("notes"), ["notes/a/b.txt"]);
});

Deno.test("a directory that replaced a synced file a peer changed meanwhile: the push of its name holds its files back and points to the conflict's resolution", async () => {
  const { store, a } = await fileReplacedByDirectory();
  const c = await clone(store, "c");
  await c.pullChanged();
  await put(c, "notes/a", "c's change");
  await c.pushChanged();
  await a.pullChanged();
  assert.ok(a.conflicts().some((x) => x.path === "notes/a"));
  await a.markDirty({ relPath: "notes/a" });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.match(
    r.skipped.find((s) => s.path === "notes/a/b.txt")!.reason,
    /notes\/a has an open conflict .*`sluice resolve notes\/a --mine` deletes it on the datastore over that change and publishes the directory's files; `sluice resolve notes\/a --theirs`/,
  );
  assert.deepEqual(store.keys("notes"), ["notes/a"], "no clash made");
  // As advised: --mine deletes the file over c's change and publishes the directory's files.
  assert.equal((await a.resolveConflict("notes/a", "mine")).resolved, true);
  assert.deepEqual(store.keys("notes"), ["notes/a/b.txt"]);
});

Deno.test("a synced file the datastore deleted while a directory of its name replaced it here: the pull agrees with the deletion, and the directory's files go out", async () => {
  const { store, a } = await fileReplacedByDirectory();
  const c = await clone(store, "c");
  await c.pullChanged();
  await Deno.remove(`${c.cacheDir}/notes/a`);
  await c.markDirty({ relPath: "notes/a" });
  await c.pushChanged();
  assert.deepEqual(store.keys("notes"), []);
  await a.pullChanged();
  assert.equal(a.state.synced("notes/a"), undefined, "the record goes with the deletion");
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/a/b.txt"]);
  assert.deepEqual(r.localDeletions, []);
});

/**
 * A commit that meets the other shape in the index leaves its own upload
 * there, unnamed, while the path is held back; here that other shape is a
 * file another tool deleted (its entry dangling, within this cache's grace,
 * so the pull keeps the hold too). Once a pull finds the way clear (a peer
 * past the grace removed the entry), the next push names that very upload:
 * no object of this cache's is left that no index names. Until that push,
 * the upload waits unnamed, the file still marked.
 */
Deno.test("an upload a commit left out beside a dangling file entry of its name is named by the first push after a pull finds the way clear", async () => {
  const store = new InMemoryStore();
  const alice = await clone(store, "alice");
  await put(alice, "notes/shared.md", "alice's file");
  await alice.pushChanged();
  await store.delete("notes/shared.md"); // another tool; the index still names it
  const bob = await clone(store, "bob");
  await put(bob, "notes/shared.md/part.md", "bob's part");
  const named = async () => Object.keys((await readIndex(store, retry))?.entries ?? {}).sort();
  const first = await bob.pushChanged();
  assert.deepEqual(first.uploaded, []);
  assert.ok(first.skipped.some((s) => s.path === "notes/shared.md/part.md" && s.keepDirty));
  assert.deepEqual(bob.state.blocked.paths(), ["notes/shared.md"]);
  assert.deepEqual(
    store.keys("notes/shared.md/"),
    ["notes/shared.md/part.md"],
    "its upload is left",
  );
  assert.deepEqual(await named(), ["notes/shared.md"]);
  // The entry dangles, but within bob's grace: the hold stays, and so does the push's.
  await bob.pullChanged();
  assert.deepEqual(bob.state.blocked.paths(), ["notes/shared.md"]);
  assert.deepEqual((await bob.pushChanged()).uploaded, []);
  // carol, past the grace, removes the entry; bob's next pull finds the way clear.
  const carol = await clone(store, "carol");
  await pastDanglingGrace(carol);
  await carol.pullChanged();
  assert.deepEqual(await named(), []);
  await bob.pullChanged();
  assert.deepEqual(bob.state.blocked.paths(), []);
  // Still unnamed until bob pushes again (the chaos checker's final sync ends here).
  assert.deepEqual(store.keys("notes/shared.md/"), ["notes/shared.md/part.md"]);
  const last = await bob.pushChanged();
  assert.deepEqual(
    [...last.uploaded, ...last.identical],
    ["notes/shared.md/part.md"],
    "the upload left is named",
  );
  assert.deepEqual(await named(), ["notes/shared.md/part.md"]);
  await assertIndexCurrent(store, { held: true });
});
