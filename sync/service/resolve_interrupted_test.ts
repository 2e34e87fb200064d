/**
 * A resolution whose push (`--mine`) or pull (`--theirs`) fails part way (the
 * datastore unreachable) leaves the conflict open: `status` still lists it,
 * a plain push still leaves the path out, and the same resolution, run
 * again, completes it. Nothing of either side is lost meanwhile.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { AbortedError, UnreachableError } from "../errors.ts";
import { assertIndexCurrent, bothSynced, clone, put, read, stopsAtDownload } from "./clone_kit.ts";
import { waitFor } from "../../packages/testing/mod.ts";

const PATH = "notes/m.txt";

/** `b` holds a conflict at PATH: both edited it, `a` pushed first. */
async function conflicted() {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, PATH, "base", "a's edit");
  await a.pushChanged();
  await put(b, PATH, "b's edit");
  const met = await b.pushChanged();
  assert.deepEqual(met.conflicts, [PATH]);
  return { store, b };
}

Deno.test("resolve --mine whose push fails keeps the conflict open; run again, it publishes", async () => {
  const { store, b } = await conflicted();
  store.failNext("put", 1, () => new UnreachableError("injected outage"));
  await assert.rejects(b.resolveConflict(PATH, "mine"), (e: Error) => {
    assert.ok(e instanceof UnreachableError);
    assert.match(e.message, /the conflict on notes\/m\.txt stays open/);
    assert.match(e.message, /run `sluice resolve notes\/m\.txt --mine` again/, e.message);
    return true;
  });
  assert.deepEqual(b.conflicts().map((c) => c.path), [PATH], "still open");
  assert.equal(store.peekText(PATH), "a's edit");
  assert.equal(await read(b, PATH), "b's edit");
  const plain = await b.pushChanged();
  assert.deepEqual(plain.conflicts, [PATH], "a plain push leaves it out, as before");
  assert.equal(store.peekText(PATH), "a's edit");
  const again = await b.resolveConflict(PATH, "mine");
  assert.equal(again.resolved, true);
  assert.equal(store.peekText(PATH), "b's edit");
  assert.deepEqual(b.conflicts(), []);
});

Deno.test("resolve --theirs whose pull fails keeps the conflict open, its copy back in place; run again, it takes theirs", async () => {
  const { store, b } = await conflicted();
  store.failNext("get", 1, () => new UnreachableError("injected outage"), {
    match: (k) => k === PATH,
  });
  await assert.rejects(b.resolveConflict(PATH, "theirs"), UnreachableError);
  const rec = b.conflicts().find((c) => c.path === PATH);
  assert.ok(rec, "still open");
  assert.equal(rec.mine?.location, PATH);
  // Its synced version is back, on disk too: a service opened again sees it.
  const again0 = await clone(store, "b", b.cacheDir);
  assert.ok(again0.state.synced(PATH), "still synced at the version it had");
  assert.equal(await read(b, PATH), "b's edit", "the copy it had set aside is back in place");
  assert.ok(b.state.dirtyPaths().includes(PATH), "still a change of this cache's");
  const again = await b.resolveConflict(PATH, "theirs");
  assert.equal(again.resolved, true);
  assert.equal(await read(b, PATH), "a's edit");
  assert.deepEqual(b.conflicts(), []);
  assert.equal(again.setAside.length, 1);
  assert.equal(await read(b, again.setAside[0]), "b's edit", "kept aside by the resolution");
});

Deno.test("after a --theirs cut off, a pull and then --mine publish this cache's copy, never theirs", async () => {
  const { store, b } = await conflicted();
  store.failNext("get", 1, () => new UnreachableError("injected outage"), {
    match: (k) => k === PATH,
  });
  await assert.rejects(b.resolveConflict(PATH, "theirs"), UnreachableError);
  // The copy went back where it was: the cut-off resolution changed nothing here.
  assert.equal(await read(b, PATH), "b's edit");
  assert.deepEqual((await b.pullChanged()).conflicts, [PATH]);
  assert.equal(await read(b, PATH), "b's edit", "a pull keeps the copy in conflict");
  const r = await b.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(PATH), "b's edit", "mine is what was published");
});

/** `b`'s resolution (`how`) whose upload landed and whose index write failed. */
async function cutAfterUpload(how: "mine" | "merged") {
  const c = await conflicted();
  if (how === "merged") await put(c.b, PATH, "merged by hand");
  c.store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(c.b.resolveConflict(PATH, how));
  const uploaded = how === "merged" ? "merged by hand" : "b's edit";
  assert.equal(c.store.peekText(PATH), uploaded, "uploaded over theirs, not committed");
  assert.deepEqual(c.b.conflicts().map((x) => x.path), [PATH], "kept open");
  return { ...c, uploaded };
}

Deno.test("a --theirs that meets this cache's own upload over theirs takes it and finishes publishing it", async () => {
  const { store, b, uploaded } = await cutAfterUpload("mine");
  const r = await b.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true, "what the datastore holds is taken");
  assert.ok(r.ownUpload, "said to be this cache's own upload");
  assert.ok(r.published, "and committed");
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, PATH), uploaded);
  for (const l of r.setAside) assert.equal(await read(b, l), "b's edit", `${l} kept aside`);
  // The index names it: a peer's pull takes it (before, it skipped it as uncommitted).
  const a = await clone(store, "a2");
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.uncommitted, []);
  assert.equal(await read(a, PATH), uploaded);
});

Deno.test("a --theirs over this cache's own upload, the copy here theirs already (copied by hand), writes theirs back over that upload and commits it", async () => {
  const { store, b } = await cutAfterUpload("mine");
  // The user copies theirs into place by hand (from a peer's checkout), then takes theirs.
  await put(b, PATH, "a's edit", false);
  const r = await b.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, PATH), "a's edit");
  // Theirs is what the datastore holds again, under a version the index names.
  assert.equal(store.peekText(PATH), "a's edit", "theirs, not the cut-off upload of mine");
  await assertIndexCurrent(store);
  assert.ok(r.published, "written again and committed");
  assert.equal(b.state.synced(PATH)?.version, (await store.head(PATH))!.version);
  assert.deepEqual(b.state.dirtyPaths(), [], "nothing left to push");
  const a = await clone(store, "a2");
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.uncommitted, [], "a peer's pull takes it, never skips it as uncommitted");
  assert.equal(await read(a, PATH), "a's edit");
});

Deno.test("a --merged cut off after its upload, its file then deleted by hand: --mine says theirs is gone too, and --theirs finishes the merge", async () => {
  const { store, b, uploaded } = await cutAfterUpload("merged");
  await Deno.remove(`${b.cacheDir}/${PATH}`);
  const refused = await b.resolveConflict(PATH, "mine").catch((e) => e);
  assert.equal(refused.code, "not_found");
  assert.match(refused.message, /no longer on the datastore either/);
  assert.match(refused.message, /sluice resolve notes\/m\.txt --theirs/);
  // --merged again, with no file to merge, says the same (never that theirs stays there).
  const merged = await b.resolveConflict(PATH, "merged").catch((e) => e);
  assert.match(merged.message, /no longer on the datastore either/);
  assert.equal(store.peekText(PATH), uploaded, "nothing changed on the datastore");
  const r = await b.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true);
  assert.deepEqual(r.setAside, [], "nothing was here to set aside");
  assert.equal(await read(b, PATH), uploaded);
  assert.equal(store.peekText(PATH), uploaded);
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual((await b.pushChanged()).uploaded, [], "nothing left to publish");
  const a = await clone(store, "a2");
  await a.pullChanged();
  assert.equal(await read(a, PATH), uploaded, "a peer's pull takes the merge");
});

Deno.test("--merged of a copy left as the conflict found it over a peer's deletion is refused (not_merged): their deletion is not undone without a word", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, PATH, "base", "base");
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.pushChanged({ only: [PATH] });
  await put(b, PATH, "b's edit");
  assert.deepEqual((await b.pushChanged()).conflicts, [PATH]);
  const refused = await b.resolveConflict(PATH, "merged").catch((e) => e);
  assert.equal(refused.code, "not_merged");
  assert.match(refused.message, /the datastore's side is a deletion/);
  assert.match(refused.message, /sluice resolve notes\/m\.txt --mine/);
  assert.equal(store.peekText(PATH), undefined, "their deletion stands");
  assert.deepEqual(b.conflicts().map((c) => c.path), [PATH], "still open");
  // --mine says it outright.
  assert.equal((await b.resolveConflict(PATH, "mine")).resolved, true);
  assert.equal(store.peekText(PATH), "b's edit");
});

Deno.test("a --mine run again after one cut off after its upload says it published (the upload, committed now), never that nothing was", async () => {
  const { store, b, uploaded } = await cutAfterUpload("mine");
  const uploadedAt = (await store.head(PATH))!.version;
  const again = await b.resolveConflict(PATH, "mine");
  assert.equal(again.resolved, true);
  assert.ok(again.published, "published by this run: the index named theirs before it");
  assert.equal(b.state.synced(PATH)?.version, again.published);
  assert.equal(store.peekText(PATH), uploaded);
  assert.equal((await store.head(PATH))!.version, uploadedAt, "found in place, not uploaded again");
});

Deno.test("a --mine cancelled after its upload says so of the resolution (run the same resolve again), not of a push", async () => {
  const { store, b } = await conflicted();
  const ctl = new AbortController();
  // Cancelled as its commit reads the index, its upload landed.
  store.failNext("get", 1, () => {
    ctl.abort();
    return new AbortedError("The get of .datastore-index.json");
  }, { match: (k) => k === ".datastore-index.json" });
  const err = await b.resolveConflict(PATH, "mine", { signal: ctl.signal }).catch((e) => e);
  assert.equal(err.code, "aborted", err.message);
  assert.equal(err.exitCode, 130);
  assert.match(err.message, /The resolution of notes\/m\.txt was cancelled/);
  assert.match(err.message, /Run the same `sluice resolve notes\/m\.txt --mine` again to finish/);
  assert.doesNotMatch(err.message, /sluice push/);
  assert.deepEqual(b.conflicts().map((c) => c.path), [PATH], "still open");
  const again = await b.resolveConflict(PATH, "mine");
  assert.equal(again.resolved, true);
  assert.ok(again.published);
  assert.equal(store.peekText(PATH), "b's edit");
});

Deno.test("a --theirs cut off while it takes this cache's own upload keeps the conflict open, naming the copy it set aside; run again, it finishes", async () => {
  const { store, b, uploaded } = await cutAfterUpload("merged");
  // The datastore goes away as the upload is read back: its body fails part way.
  const get = store.getStream!.bind(store);
  store.getStream = async (k, o) => {
    const got = await get(k, o);
    if (k !== PATH) return got;
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => c.error(new UnreachableError("outage during the take")),
    });
    return { ...got, body };
  };
  await assert.rejects(b.resolveConflict(PATH, "theirs"), UnreachableError);
  store.getStream = get;
  const rec = b.conflicts().find((c) => c.path === PATH);
  assert.ok(rec, "still open");
  assert.equal(await read(b, rec.mine!.location), "merged by hand", "the copy it names is there");
  const again = await b.resolveConflict(PATH, "theirs");
  assert.equal(again.resolved, true);
  assert.equal(await read(b, PATH), uploaded);
});

Deno.test("a --theirs whose process stops for good at its pull's download leaves the conflict open, naming the copy it set aside; --mine never deletes theirs for it", async () => {
  const { store, b } = await conflicted();
  // The process stops for good as it downloads theirs (killed, the machine lost).
  const { store: stops, downloading } = stopsAtDownload(store, PATH);
  const stopped = await clone(stops, "b", b.cacheDir);
  stopped.resolveConflict(PATH, "theirs").catch(() => {});
  await waitFor(() => downloading());
  assert.equal(await read(b, PATH), undefined, "set aside before the download");
  // The next command to open the cache.
  const again = await clone(store, "b", b.cacheDir);
  await again.pullChanged();
  const rec = again.conflicts().find((c) => c.path === PATH);
  assert.ok(rec, "still open");
  assert.ok(rec.mine, `b's copy is named, not taken for a deletion here: ${JSON.stringify(rec)}`);
  assert.equal(await read(again, rec.mine.location), "b's edit");
  await again.resolveConflict(PATH, "mine");
  assert.equal(store.peekText(PATH), "b's edit", "mine is b's copy, never a deletion of theirs");
});

Deno.test("a --theirs that ends leaves no copy to be named again: the next process to open the cache finds no conflict", async () => {
  const { store, b } = await conflicted();
  const r = await b.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true);
  assert.equal(r.setAside.length, 1, "b's copy is kept aside");
  const again = await clone(store, "b", b.cacheDir);
  assert.deepEqual(again.conflicts(), []);
  assert.equal(await read(again, r.setAside[0]), "b's edit");
});

Deno.test("a --theirs whose pull finds theirs' object gone (the index still naming it) takes the datastore's side, nothing there, and says so; the copy stays aside", async () => {
  const { store, b } = await conflicted();
  // Theirs' object is deleted outside Sluice.
  await store.delete(PATH);
  const r = await b.resolveConflict(PATH, "theirs");
  assert.deepEqual(r.pull?.vanished, [PATH], "told: the index names a gone object");
  assert.equal(r.resolved, true);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, PATH), undefined);
  assert.equal(r.setAside.length, 1);
  assert.equal(await read(b, r.setAside[0]), "b's edit", "b's copy is kept aside");
});

Deno.test("a --theirs stopped right after it moved the copy aside, before any record said so: the next process names the copy as yours", async () => {
  const { store, b } = await conflicted();
  const rec = b.conflicts().find((c) => c.path === PATH)!;
  const here = (await b.cache.hashFile(PATH))!;
  // What the resolution does first, and nothing after it (the process dies).
  const at = await b.cache.setAside(
    PATH,
    "resolve --theirs: the local copy was replaced",
    undefined,
    {
      mine: { hash: here.hash, size: here.size },
      theirs: rec.theirs,
      reason: rec.reason,
    },
  );
  const again = await clone(store, "b", b.cacheDir);
  const now = again.conflicts().find((c) => c.path === PATH);
  assert.equal(now?.mine?.location, at, "the copy is yours, where it is now");
  await again.pullChanged();
  assert.equal(again.conflicts().find((c) => c.path === PATH)?.mine?.location, at);
  await again.resolveConflict(PATH, "mine");
  assert.equal(store.peekText(PATH), "b's edit", "mine is b's copy, never a deletion of theirs");
});
