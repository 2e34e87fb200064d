import assert from "node:assert/strict";
import { InMemoryStore, peerPull, peerPush, peerReadIndex } from "../../packages/testing/mod.ts";
import type { WarningEvent } from "../events.ts";
import { pullLeftBehind } from "./pull.ts";
import { updateManagedLockfile } from "../locks/lockfile_txn.ts";
import {
  assertGoneEverywhere,
  clone,
  commit,
  dropped,
  enc,
  FILES,
  lockfileEntryDropped,
  lost,
  oldPullMeetsGone,
  pullAfterUnmarkedDeletion,
  THEIRS,
} from "./dropped_entries_kit.ts";

const LOCKFILE = "config/upstream_extensions.json";

Deno.test("a pull keeps a synced file whose index entry another client dropped, and the next push publishes it again", async () => {
  const { store, a } = await dropped();
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.removed, []);
  assert.deepEqual(pulled.dropped.sort(), Object.keys(FILES).sort());
  assert.deepEqual(pulled.fetched, [THEIRS]);
  for (const [p, t] of Object.entries(FILES)) {
    assert.equal(await Deno.readTextFile(`${a.cacheDir}/${p}`), t, `${p} kept`);
  }
  assert.deepEqual(warnings.map((w) => w.code), ["index_entry_dropped"]);
  assert.match(warnings[0].message, /sluice push --global-lock/);
  // Not a clean pull: it left them for a push (sync_incomplete in the CLI).
  assert.equal(pullLeftBehind(pulled).left.length, 3);
  assert.deepEqual(a.state.dirtyPaths().sort(), Object.keys(FILES).sort());

  const pushed = await a.pushChanged();
  assert.deepEqual(
    [...pushed.uploaded, ...pushed.identical].sort(),
    Object.keys(FILES).sort(),
    JSON.stringify(pushed),
  );
  assert.deepEqual(pushed.skipped, []);
  assert.deepEqual(pushed.conflicts, []);
  assert.deepEqual(
    Object.keys(await peerReadIndex(store)).sort(),
    [...Object.keys(FILES), THEIRS].sort(),
  );
  const b = await clone(store, "b");
  assert.deepEqual((await b.pullChanged()).fetched.sort(), [...Object.keys(FILES), THEIRS].sort());
  assert.deepEqual((await a.pullChanged()).dropped, []);
});

Deno.test("a pull still removes a file a peer deleted: its object is gone with its entry", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await commit(a, "config/app.yaml", "a: 1\n");
  await b.pullChanged();
  await Deno.remove(`${b.cacheDir}/config/app.yaml`);
  await b.markDirty({ relPath: "config/app.yaml" });
  assert.deepEqual((await b.pushChanged()).deleted, ["config/app.yaml"]);
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.removed, ["config/app.yaml"]);
  assert.deepEqual(pulled.dropped, []);
  await assert.rejects(Deno.lstat(`${a.cacheDir}/config/app.yaml`), Deno.errors.NotFound);
});

Deno.test("a dropped entry whose object was replaced since is not this cache's to publish: removed as before", async () => {
  const { store, a } = await dropped();
  store.seed("config/app.yaml", "someone else's\n");
  const pulled = await a.pullChanged();
  assert.ok(pulled.removed.includes("config/app.yaml"));
  assert.ok(!pulled.dropped.includes("config/app.yaml"));
});

Deno.test("a pull keeps a synced file whose index entry another client rolled back to an older version, and the next push publishes it again", async () => {
  const { store, a, path } = await lost("rolled back");
  // The old client's write put back the entry it had read: "one", whose object is gone.
  assert.equal((await peerReadIndex(store))[path].size, 4);
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.dropped, [path]);
  assert.deepEqual(pulled.uncommitted, []);
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${path}`), "two\n");
  const pushed = await a.pushChanged();
  assert.deepEqual(pushed.conflicts, [], JSON.stringify(pushed));
  const b = await clone(store, "b");
  const fresh = await b.pullChanged();
  assert.deepEqual(fresh.uncommitted, []);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "two\n");
});

Deno.test("after a pull kept a dropped entry, an edit or a deletion made here is pushed over the synced version", async (t) => {
  for (const how of ["dropped", "rolled back"] as const) {
    await t.step(`${how}: edit`, async () => {
      const { store, a, path } = await lost(how);
      await a.pullChanged();
      await a.cache.write(path, enc("edited after the pull\n"));
      await a.markDirty({ relPath: path });
      const pushed = await a.pushChanged();
      assert.deepEqual(pushed.uploaded, [path], JSON.stringify(pushed));
      assert.deepEqual(pushed.conflicts, []);
      const b = await clone(store, "b");
      await b.pullChanged();
      assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "edited after the pull\n");
    });
    await t.step(`${how}: deletion`, async () => {
      const { store, a, path } = await lost(how);
      await a.pullChanged();
      await Deno.remove(`${a.cacheDir}/${path}`);
      await a.markDirty({ relPath: path });
      const pushed = await a.pushChanged();
      assert.deepEqual(pushed.deleted, [path], JSON.stringify(pushed));
      assert.equal((await peerReadIndex(store))[path], undefined);
      assert.equal(store.peek(path), undefined);
      const b = await clone(store, "b");
      const fresh = await b.pullChanged();
      assert.deepEqual(fresh.uncommitted, []);
      await assert.rejects(Deno.lstat(`${b.cacheDir}/${path}`), Deno.errors.NotFound);
    });
  }
});

/**
 * A second pull before that push (a refused run's refresh, say; a peer's
 * commit in between has it read the index again) meets the entry still
 * dropped and the copy here changed since: no deletion there (the
 * store still holds the synced version), so no conflict with one; the edit
 * stays for the push (chaos seed 210400008: a `latest` marker reset here by a
 * refused run's erasure was held as "changed here, deleted on the datastore",
 * and its put-back object stood named by no index).
 */
Deno.test("a dropped entry kept by a pull and edited here since is no conflict at the next pull: the push publishes the edit", async () => {
  const { store, a, path } = await lost("dropped");
  assert.deepEqual((await a.pullChanged()).dropped, [path]);
  await a.cache.write(path, enc("edited between two pulls\n"));
  await a.markDirty({ relPath: path });
  const peer = await clone(store, "peer");
  await commit(peer, "notes/peer.txt", "peer\n");
  const again = await a.pullChanged();
  assert.deepEqual(again.conflicts, [], JSON.stringify(again));
  assert.deepEqual(a.conflicts(), []);
  assert.deepEqual(again.dropped, [path]);
  assert.deepEqual(again.fetched, ["notes/peer.txt"]);
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${path}`), "edited between two pulls\n");
  const pushed = await a.pushChanged();
  assert.deepEqual(pushed.uploaded, [path], JSON.stringify(pushed));
  assert.deepEqual(pushed.conflicts, []);
  assert.equal(store.peekText(path), "edited between two pulls\n");
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "edited between two pulls\n");
});

Deno.test("a pull whose check of a vanished entry fails keeps what it fetched and the conflicts it found", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await commit(b, "config/gone.yaml", "gone\n");
  await a.pullChanged();
  await Deno.remove(`${b.cacheDir}/config/gone.yaml`);
  await b.cache.write("config/new.yaml", enc("new\n"));
  await b.markDirty({ relPaths: ["config/gone.yaml", "config/new.yaml"] });
  await b.pushChanged();
  await a.cache.write("config/new.yaml", enc("a's own, never synced\n"));
  store.failNext("head", 5, undefined, { match: (k) => k === "config/gone.yaml" });
  await assert.rejects(a.pullChanged());
  // Reopened from disk: the set-aside copy's conflict was recorded, and the fetch kept.
  const again = await clone(store, "a", a.cacheDir);
  assert.deepEqual(again.conflicts().map((c) => c.path), ["config/new.yaml"]);
  assert.equal(again.state.synced("config/new.yaml")?.size, 4);
});

Deno.test("an old client's pull that meets a missing object writes back the index it read, dropping a commit made meanwhile: the writer's next pull names it again", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const dropped = await oldPullMeetsGone(store, a, async () => {
    // b commits between that pull's read of the index and its write.
    assert.deepEqual((await commit(b, "config/b.yaml", "b: 1\n")).uploaded, ["config/b.yaml"]);
  });
  assert.deepEqual(dropped, ["notes/gone.txt"]);
  assert.equal((await peerReadIndex(store))["config/b.yaml"], undefined, "b's commit dropped");
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  await b.pullChanged();
  assert.ok(warnings.some((w) => w.code === "index_entry_dropped"));
  await b.pushChanged();
  assert.ok((await peerReadIndex(store))["config/b.yaml"], "named again");
});

/**
 * A peer that synced a file edits it and pushes before any pull of its own
 * saw that an old client's write-back dropped the file's entry: its write
 * goes over the version it synced, which the store still holds, so nobody
 * deleted the file. The edit is published, as one made after a pull kept
 * the dropped entry is, never taken for a meeting with a committed deletion
 * (which would leave it out and delete its upload, the committed version it
 * replaced gone with it).
 */
Deno.test("an edit pushed over a synced version whose entry an old client dropped, before a pull here saw the drop, is published", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const c = await clone(store, "c");
  const path = "config/b.yaml";
  await oldPullMeetsGone(store, a, async () => {
    // b commits between that pull's read of the index and its write; c syncs it.
    assert.deepEqual((await commit(b, path, "b: 1\n")).uploaded, [path]);
    assert.ok((await c.pullChanged()).fetched.includes(path));
  });
  assert.equal((await peerReadIndex(store))[path], undefined, "b's commit dropped");
  assert.equal(store.peekText(path), "b: 1\n", "its object still there");
  const pushed = await commit(c, path, "c: 2\n");
  assert.deepEqual(pushed.conflicts, [], JSON.stringify(pushed));
  assert.deepEqual(pushed.uploaded, [path]);
  assert.ok((await peerReadIndex(store))[path], "named again, with c's edit");
  assert.equal(store.peekText(path), "c: 2\n");
  await b.pullChanged();
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "c: 2\n");
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await Deno.readTextFile(`${fresh.cacheDir}/${path}`), "c: 2\n");
});

Deno.test("the managed lockfile's entry an old client's pull dropped is named again by its writer's next pull and push, nothing uploaded", async () => {
  const store = new InMemoryStore();
  const a = await lockfileEntryDropped(store);
  assert.equal(
    (await peerReadIndex(store))[LOCKFILE],
    undefined,
    "the transaction's entry dropped",
  );
  const before = (await store.head(LOCKFILE))!.version;
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  await a.pullChanged();
  assert.ok(warnings.some((w) => w.code === "index_entry_dropped"));
  await a.pushChanged();
  assert.ok((await peerReadIndex(store))[LOCKFILE], "named again");
  assert.equal((await store.head(LOCKFILE))!.version, before, "nothing uploaded");
  assert.ok(!warnings.some((w) => w.code === "lockfile_guarded"));
});

Deno.test("a lockfile entry to name again is never written over a peer's transaction landing between the guard's look and the push's", async () => {
  const store = new InMemoryStore();
  const a = await lockfileEntryDropped(store);
  const c = await clone(store, "c");
  await a.pullChanged();
  // c's transaction lands right after a's guard looked at the lockfile.
  const head = store.head.bind(store);
  let heads = 0;
  store.head = async (k, o) => {
    const r = await head(k, o);
    if (k === LOCKFILE && ++heads === 1) {
      await updateManagedLockfile(c, { set: { "@acme/peer": { version: "9.9.9" } } });
    }
    return r;
  };
  const pushed = await a.pushChanged();
  store.head = head;
  assert.equal(heads > 0, true);
  assert.deepEqual(pushed.uploaded, [], "nothing uploaded");
  const now = JSON.parse(store.peekText(LOCKFILE)!);
  assert.ok(now["@acme/peer"], "the peer's transaction entry is kept");
  assert.ok(now["@acme/x"], "and a's, which that transaction was applied over");
  assert.ok((await peerReadIndex(store))[LOCKFILE], "named by c's transaction");
});

Deno.test("a lockfile entry to name again whose copy here changed meanwhile is left out as unpublished, never written", async () => {
  const store = new InMemoryStore();
  const a = await lockfileEntryDropped(store);
  await a.pullChanged();
  const before = (await store.head(LOCKFILE))!.version;
  // The copy here is edited right after the guard looked at the store.
  const head = store.head.bind(store);
  let heads = 0;
  store.head = async (k, o) => {
    const r = await head(k, o);
    if (k === LOCKFILE && ++heads === 1) await a.cache.write(LOCKFILE, enc('{"@acme/y":{}}\n'));
    return r;
  };
  const pushed = await a.pushChanged();
  store.head = head;
  assert.deepEqual(pushed.uploaded, []);
  assert.equal((await store.head(LOCKFILE))!.version, before, "nothing written");
  const left = pushed.skipped.find((s) => s.path === LOCKFILE);
  assert.equal(left?.unpublished, true, JSON.stringify(pushed.skipped));
});

Deno.test("an old client's pull that writes back an entry it read before a Sluice edit of the file: the writer's next pull keeps its version and its push names it again", async () => {
  const store = new InMemoryStore();
  // An old client's file, and one whose object another tool then deletes.
  await peerPush(store, { "notes/x.md": "old client's\n", "notes/gone.txt": "soon gone\n" });
  const a = await clone(store, "a");
  await a.pullChanged();
  await store.delete("notes/gone.txt");
  await peerPull(store, {
    afterRead: async () => {
      // a's edit commits between that pull's read of the index and its write.
      await a.cache.write("notes/x.md", enc("a's edit, committed\n"));
      await a.markDirty({ relPath: "notes/x.md" });
      assert.deepEqual((await a.pushChanged()).uploaded, ["notes/x.md"]);
    },
  });
  // The index names the old client's bytes again; the store holds a's.
  assert.equal((await peerReadIndex(store))["notes/x.md"]?.size, 13);
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.dropped, ["notes/x.md"]);
  assert.ok(warnings.some((w) => w.code === "index_entry_dropped"));
  await a.pushChanged();
  const fresh = await clone(store, "fresh");
  const got = await fresh.pullChanged();
  assert.deepEqual(got.uncommitted, [], "a fresh clone skips nothing");
  assert.equal(await Deno.readTextFile(`${fresh.cacheDir}/notes/x.md`), "a's edit, committed\n");
});

/**
 * Clone `a`'s committed edit of `config/app.yaml`, dropped from the index by
 * an old client's write-back, deleted here by hand before `a`'s next pull.
 * An entry gone while the store still holds the synced version is no
 * deletion on the datastore (a deletion removes the object first), so the
 * pull keeps the record: forgotten, the object would stand on the store for
 * good, named by no index. Not marked, the deletion stays a local one, which
 * only a push of its name makes on the datastore (a push of everything
 * pending, or a walk, never deletes); marked, the next push makes it.
 */
Deno.test("a file deleted here whose index entry another client dropped: the pull keeps its record, and only a push of its name deletes the object", async (t) => {
  await t.step("the deletion not marked", async () => {
    const { store, a, path } = await lost("dropped");
    assert.equal((await peerReadIndex(store))[path], undefined, "the entry dropped");
    const { warnings, version } = await pullAfterUnmarkedDeletion(a, path);
    assert.equal(warnings[0].path, path);
    assert.match(warnings[0].message, /did not delete it/);
    assert.match(warnings[0].message, /deleted here/);
    assert.match(warnings[0].message, /`sluice push config\/app\.yaml`/);
    assert.match(warnings[0].message, /`sluice pull --restore-deleted`/);
    assert.deepEqual((await a.pushChanged()).deleted, [], "a push of everything pending");
    await a.markDirty();
    const walked = await a.pushChanged();
    assert.deepEqual(walked.deleted, [], "a walk");
    assert.deepEqual(walked.localDeletions, [path]);
    assert.equal(store.peekText(path), "two\n", "the object kept");
    assert.deepEqual((await a.pullChanged()).removed, []);
    assert.equal(a.state.synced(path)?.version, version, "kept by the next pull");
    await a.markDirty({ relPath: path });
    assert.deepEqual((await a.pushChanged()).deleted, [path], "a push of its name");
    await assertGoneEverywhere(store, a, path);
  });
  await t.step("the deletion marked dirty", async () => {
    const { store, a, path } = await lost("dropped");
    assert.equal((await peerReadIndex(store))[path], undefined, "the entry dropped");
    await Deno.remove(`${a.cacheDir}/${path}`);
    await a.markDirty({ relPath: path });
    const pulled = await a.pullChanged();
    assert.deepEqual(pulled.removed, []);
    assert.deepEqual(pulled.droppedHere, []);
    await a.pushChanged();
    await assertGoneEverywhere(store, a, path);
  });
});

/**
 * As above, the file replaced here by a directory of its name, nothing
 * marked: a walk publishes neither the directory's files nor the deletion
 * (both wait for a push of the path's name, as for any synced file a
 * directory replaced here), and the object stays.
 */
Deno.test("a file replaced here by a directory, whose index entry another client dropped: a walk deletes nothing and holds the directory back", async () => {
  const { store, a, path } = await lost("dropped");
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.cache.write(`${path}/x.txt`, enc("x\n"));
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.droppedHere, [path]);
  assert.deepEqual(a.state.dirtyPaths(), [], "nothing marked");
  await a.markDirty();
  const walked = await a.pushChanged();
  assert.deepEqual(walked.deleted, []);
  assert.deepEqual(walked.uploaded, []);
  assert.equal(store.peekText(path), "two\n", "the object kept");
  assert.equal(store.peek(`${path}/x.txt`), undefined, "the directory held back");
  await a.markDirty({ relPath: path });
  const named = await a.pushChanged();
  assert.deepEqual(named.deleted, [path]);
  assert.deepEqual(named.uploaded, [`${path}/x.txt`]);
  assert.equal(store.peek(path), undefined);
});

/**
 * As above, the deletion here taken back: a pull with `restoreDeleted`
 * fetches the version the store still holds, and keeps it as a dropped
 * entry, for the next push to name again.
 */
Deno.test("a file deleted here whose index entry another client dropped is taken back by a pull with restoreDeleted, and named again by the next push", async () => {
  const { store, a, path } = await lost("dropped");
  await Deno.remove(`${a.cacheDir}/${path}`);
  assert.deepEqual((await a.pullChanged()).droppedHere, [path]);
  const restored = await a.pullChanged({ restoreDeleted: true });
  assert.deepEqual(restored.droppedHere, []);
  assert.deepEqual(restored.fetched, [path]);
  assert.deepEqual(restored.dropped, [path]);
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${path}`), "two\n");
  assert.deepEqual(a.state.dirtyPaths(), [path]);
  const pushed = await a.pushChanged();
  assert.deepEqual([...pushed.uploaded, ...pushed.identical], [path]);
  assert.ok((await peerReadIndex(store))[path], "named again");
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "two\n");
});

/**
 * Clones `a` and `b` both synced `config/app.yaml`, committed by `a` while
 * an old client's push read the index, whose write-back then dropped the
 * entry. `a`'s user deletes the file by hand, never naming the deletion (a
 * partly wiped cache). A deletion nobody pushed by name never deletes on the
 * datastore: `b`'s copy, named again by its push, stays on every side,
 * whichever of `a`'s pull and push and `b`'s pull and push comes first.
 */
Deno.test("a file deleted here, unnamed, whose entry another client dropped is never deleted on the datastore by a push of everything pending, while a peer names it again", async (t) => {
  const path = "config/app.yaml";
  for (const order of ["peer first", "peer last"] as const) {
    await t.step(order, async () => {
      const store = new InMemoryStore();
      const a = await clone(store, "a");
      const b = await clone(store, "b");
      await peerPush(store, { [THEIRS]: "theirs\n" }, {
        afterRead: async () => {
          await a.cache.write(path, enc("a: 1\n"));
          await a.markDirty({ relPath: path });
          assert.deepEqual((await a.pushChanged()).uploaded, [path]);
          assert.ok((await b.pullChanged()).fetched.includes(path));
        },
      });
      assert.equal((await peerReadIndex(store))[path], undefined, "the entry dropped");
      await Deno.remove(`${a.cacheDir}/${path}`);
      const peer = async () => {
        await b.pullChanged();
        await b.pushChanged();
      };
      if (order === "peer first") await peer();
      await a.pullChanged();
      const pushed = await a.pushChanged();
      if (order === "peer last") await peer();
      const deletedByA = pushed.deleted;
      await b.pullChanged();
      assert.equal(
        await Deno.readTextFile(`${b.cacheDir}/${path}`).catch(() => null),
        "a: 1\n",
        "the peer's copy removed",
      );
      assert.equal(store.peekText(path), "a: 1\n", "the object deleted");
      assert.ok((await peerReadIndex(store))[path], "named again by the peer");
      assert.deepEqual(deletedByA, [], "a deletion nobody named, pushed");
    });
  }
});
