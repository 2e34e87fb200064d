/**
 * An old client (swamp's existing extensions) writes and deletes without a
 * compare-and-swap. When it replaces or deletes a Sluice push's write
 * between that push's upload and its commit, never having seen it, the
 * commit must not name the write: it is gone, and naming it would hide the
 * old client's change from every reader. The path is left out of the
 * commit, kept dirty at the version synced before, and recorded as a
 * conflict against what the store holds: both sides' changes are kept, and
 * the user chooses.
 */
import assert from "node:assert/strict";
import {
  InMemoryStore,
  peerPush,
  peerReadIndex,
  seedPeerBucket,
} from "../../packages/testing/mod.ts";
import { META_KEY } from "../transfer/bucket_layout.ts";
import { SLUICE_SEQ } from "../transfer/index_v2.ts";
import { PutModes } from "../ports.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { sha256Hex } from "../hash.ts";
import type { WarningEvent } from "../events.ts";
import type { SyncService } from "./service.ts";
import { assertIndexCurrent, clone, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";

const PATH = "config/app.yaml";

function warningsOf(svc: SyncService): WarningEvent[] {
  const out: WarningEvent[] = [];
  svc.events.on("warning", (w) => out.push(w));
  return out;
}

/**
 * `a` pushed PATH, then edited it; its push is prepared (uploaded) and an old
 * client writes its own edit over that upload before the commit.
 */
async function editOverwrittenBeforeCommit() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "one\n");
  await a.pushChanged();
  await put(a, PATH, "sluice edit\n");
  const prepared = await a.preparePush();
  await peerPush(store, { [PATH]: "old client edit\n" });
  return { store, a, prepared };
}

/** `a` pushed PATH, then deleted it here and marked the deletion, not yet pushed. */
async function deletedHere() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "one\n");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  return { store, a };
}

/** The same, committed (a conflict), then `resolve --mine` stopped after its upload (the index write cut off). */
async function resolutionStoppedAfterUpload() {
  const { store, a, prepared } = await editOverwrittenBeforeCommit();
  assert.deepEqual((await a.commitPush(prepared)).overwritten, [PATH]);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(a.resolveConflict(PATH, "mine")); // its upload stays, uncommitted
  await a.pullChanged();
  return { store, a };
}

for (const first of ["Sluice", "an old client"]) {
  Deno.test(`old client: its edit over a Sluice upload before the commit is kept, and the Sluice edit becomes a conflict (first written by ${first})`, async () => {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    if (first === "Sluice") {
      await put(a, PATH, "one\n");
      await a.pushChanged();
    } else {
      await peerPush(store, { [PATH]: "one\n" });
      await a.pullChanged();
    }
    await put(a, PATH, "sluice edit\n");
    const warnings = warningsOf(a);
    const prepared = await a.preparePush();
    await peerPush(store, { [PATH]: "old client edit\n" }); // under the global lock, between the two
    const r = await a.commitPush(prepared);

    assert.deepEqual(r.uploaded, [], "nothing of it was published");
    assert.deepEqual(r.overwritten, [PATH]);
    assert.deepEqual(r.conflicts, [PATH]);
    assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [[PATH, true]]);
    assert.deepEqual(warnings.map((w) => w.code), ["overwritten_before_commit"]);
    assert.match(warnings[0].message, /Nothing of it was published/);
    assert.match(warnings[0].message, /sluice resolve config\/app\.yaml --mine/);
    const rec = a.conflicts().find((c) => c.path === PATH);
    assert.equal(
      rec?.theirs?.version,
      (await store.head(PATH))?.version,
      "theirs is the old client's",
    );
    assert.equal(rec?.mine?.location, PATH);
    assert.equal(store.peekText(PATH), "old client edit\n");
    assert.equal(
      (await peerReadIndex(store))[PATH].size,
      "old client edit\n".length,
      "the old client's entry stands",
    );
    await assertIndexCurrent(store, { held: true });

    const fresh = await clone(store, "fresh");
    await fresh.pullChanged();
    assert.equal(await read(fresh, PATH), "old client edit\n", "readers get the old client's edit");

    assert.equal(await read(a, PATH), "sluice edit\n", "the Sluice edit is kept");
    const again = await a.pushChanged();
    assert.deepEqual(again.conflicts, [PATH], "a push leaves it to its resolution");
    assert.equal(store.peekText(PATH), "old client edit\n");
    await a.resolveConflict(PATH, "mine");
    assert.equal(store.peekText(PATH), "sluice edit\n");
    await assertIndexCurrent(store, { held: true });
  });
}

Deno.test("old client: its edit over a Sluice upload, committed anyway, hides the edit from every reader (control: the foreign entry not checked)", async () => {
  // What the commit would do without the check: name the Sluice version over the old client's entry.
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "one\n");
  await a.pushChanged();
  await put(a, PATH, "sluice edit\n");
  await a.preparePush();
  const uploaded = (await store.head(PATH))!.version;
  await peerPush(store, { [PATH]: "old client edit\n" });
  const bytes = new TextEncoder().encode("sluice edit\n");
  await updateIndex(store, {
    set: { [PATH]: { v: uploaded, h: await sha256Hex(bytes), s: bytes.length } },
    remove: [],
  }, quick.retry);
  const fresh = await clone(store, "fresh");
  const r = await fresh.pullChanged();
  assert.deepEqual(r.uncommitted, [PATH], "a reader skips the old client's edit");
  assert.equal(await read(fresh, PATH), undefined);
});

Deno.test("old client: its file re-created over a Sluice deletion before the commit is kept, and the deletion becomes a conflict", async () => {
  const { store, a } = await deletedHere();
  const warnings = warningsOf(a);
  const prepared = await a.preparePush();
  assert.equal(store.peek(PATH), undefined, "deleted by the preparation");
  await peerPush(store, { [PATH]: "old client again\n" });
  const r = await a.commitPush(prepared);
  assert.deepEqual(r.deleted, []);
  assert.deepEqual(r.overwritten, [PATH]);
  assert.deepEqual(r.conflicts, [PATH]);
  assert.deepEqual(warnings.map((w) => w.code), ["overwritten_before_commit"]);
  assert.ok((await readIndex(store, quick.retry))?.entries[PATH], "the old client's entry stands");
  await assertIndexCurrent(store, { held: true });
  assert.equal(await read(a, PATH), undefined, "the deletion is kept here");
  assert.equal(a.conflicts().find((c) => c.path === PATH)?.mine, null, "mine is the deletion");
  await a.pullChanged();
  assert.equal(await read(a, PATH), undefined, "a pull keeps the deletion, as a conflict");
  await a.resolveConflict(PATH, "mine");
  assert.equal(store.peek(PATH), undefined, "resolved: deleted over theirs");
  await assertIndexCurrent(store, { held: true });
});

/** `a` creates `notes/new.txt`; an old client deletes it (a blind delete, from a stale view) before `a`'s commit. */
async function createDeletedBeforeCommit(checkCreates: boolean) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "notes/new.txt";
  await put(a, path, "new\n");
  const warnings = warningsOf(a);
  const prepared = await a.preparePush(checkCreates ? { checkCreates } : {});
  await peerPush(store, {}, { remove: [path] });
  const r = await a.commitPush(prepared);
  return { store, a, path, warnings, r };
}

Deno.test("old client: with checkCreates, a Sluice create it deleted before the commit is not named, and is a conflict with the deletion", async () => {
  const { store, a, path, warnings, r } = await createDeletedBeforeCommit(true);
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.overwritten, [path]);
  assert.deepEqual(warnings.map((w) => w.code), ["overwritten_before_commit"]);
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
  await assertIndexCurrent(store, { held: true });
  const rec = a.conflicts().find((c) => c.path === path);
  assert.equal(rec?.theirs, null, "theirs is a deletion");
  assert.equal(rec?.base, undefined);
  assert.deepEqual((await a.pushChanged()).conflicts, [path], "not published again unasked");
  assert.equal(store.peek(path), undefined);
  await a.resolveConflict(path, "mine");
  assert.equal(store.peekText(path), "new\n", "published by its resolution");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("old client: without checkCreates, a create it deleted before the commit is named though gone (control), and a pull then removes the entry", async () => {
  const { store, path, r } = await createDeletedBeforeCommit(false);
  assert.deepEqual(r.uploaded, [path], "reported published");
  assert.ok(
    (await readIndex(store, quick.retry))?.entries[path],
    "named, though the store has nothing",
  );
  const b = await clone(store, "b");
  await pastDanglingGrace(b);
  await b.pullChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
});

/** `a` synced PATH (pushed by Sluice); an old client then wrote over it, and `a` changed it here too. */
async function conflictWithOldClient(deleteHere: boolean) {
  const path = "config/app.yaml";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, path, "one\n");
  await a.pushChanged();
  await peerPush(store, { [path]: "old client\n" });
  if (deleteHere) {
    await Deno.remove(`${a.cacheDir}/${path}`);
    await a.markDirty({ relPath: path });
  } else await put(a, path, "mine\n");
  assert.deepEqual((await a.pullChanged()).conflicts, [path]);
  assert.match(a.conflicts()[0].theirs!.version, /^~/, "theirs is an entry with no object version");
  return { store, a, path };
}

for (const deleteHere of [false, true]) {
  Deno.test(
    `resolve --mine over an old client's entry (no object version) ${
      deleteHere ? "deletes" : "publishes"
    } over the bytes the conflict showed`,
    async () => {
      const { store, a, path } = await conflictWithOldClient(deleteHere);
      const r = await a.resolveConflict(path, "mine");
      assert.equal(r.resolved, true, JSON.stringify(r.push?.skipped));
      assert.equal(store.peekText(path), deleteHere ? undefined : "mine\n");
      assert.deepEqual(a.conflicts(), []);
      await assertIndexCurrent(store, { held: true });
    },
  );
}

Deno.test("resolve --mine over an old client's entry that changed again since: a new conflict with what the store holds, then resolved", async () => {
  const { store, a, path } = await conflictWithOldClient(false);
  await peerPush(store, { [path]: "old client again\n" });
  const r = await a.resolveConflict(path, "mine");
  assert.equal(r.resolved, false);
  assert.deepEqual(r.conflicts, [path]);
  assert.equal(store.peekText(path), "old client again\n", "theirs is not written over unseen");
  const rec = a.conflicts()[0];
  assert.equal(
    rec.theirs?.version,
    (await store.head(path))?.version,
    "theirs now names the object",
  );
  assert.match(rec.reason, /changed again before the resolution/);
  assert.equal((await a.resolveConflict(path, "mine")).resolved, true);
  assert.equal(store.peekText(path), "mine\n");
});

/** A v2 store where, once armed, a Sluice peer bumps the meta before each of the next `bumps` meta writes. */
class MetaBumpedFirst extends InMemoryStore {
  armed = false;
  bumps = 2;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (this.armed && args[0] === META_KEY && this.bumps-- > 0) {
      const cur = JSON.parse(new TextDecoder().decode((await this.get(META_KEY)).body));
      const seq = cur.commitSeq + 1;
      const bumped = { ...cur, commitSeq: seq, [SLUICE_SEQ]: seq };
      await super.put(
        META_KEY,
        new TextEncoder().encode(JSON.stringify(bumped)),
        PutModes.overwrite,
      );
    }
    return await super.put(...args);
  }
}

Deno.test("old client, v2: an overwrite is reported also when a peer's meta bump publishes the commit", async () => {
  const path = "files/app.yaml";
  const store = new MetaBumpedFirst();
  await seedPeerBucket(store, { [path]: "one\n" }, { v2: true });
  const a = await clone(store, "a");
  await a.pullChanged();
  await put(a, path, "sluice edit\n");
  const prepared = await a.preparePush();
  await peerPush(store, { [path]: "old client edit\n" });
  store.armed = true; // the commit's meta writes are refused, and a Sluice bump publishes its shard
  const r = await a.commitPush(prepared);
  assert.equal(store.bumps, 0, "the commit was published by a peer's bump");
  assert.deepEqual(r.overwritten, [path]);
  assert.deepEqual(a.conflicts().map((c) => c.path), [path]);
  await a.pullChanged();
  assert.equal(await read(a, path), "sluice edit\n", "the Sluice edit is kept");
});

for (const how of ["edits", "deletes"]) {
  Deno.test(`old client ${how} a Sluice upload and a Sluice peer commits over that before the commit: the upload is a conflict, not lost`, async () => {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    const p = await clone(store, "p");
    await put(a, PATH, "one\n");
    await a.pushChanged();
    await p.pullChanged();
    await put(a, PATH, "sluice edit\n");
    const prepared = await a.preparePush();
    if (how === "edits") await peerPush(store, { [PATH]: "old client edit\n" });
    else await peerPush(store, {}, { remove: [PATH] });
    await p.pullChanged();
    await put(p, PATH, "peer edit\n"); // built on the old client's change, never on a's
    assert.deepEqual((await p.pushChanged()).conflicts, []);
    const r = await a.commitPush(prepared);
    assert.deepEqual(r.overwritten, [PATH]);
    assert.equal(store.peekText(PATH), "peer edit\n");
    await a.pullChanged();
    assert.equal(await read(a, PATH), "sluice edit\n", "the Sluice edit is kept, as a conflict");
    assert.equal(a.conflicts()[0]?.theirs?.version, (await store.head(PATH))?.version);
  });
}

Deno.test("resolve --mine over an old client's entry, stopped after its upload (the index write failed): the conflict stays open, and the same resolution then commits that upload", async () => {
  const { store, a, path } = await conflictWithOldClient(false);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(a.resolveConflict(path, "mine"));
  assert.equal(store.peekText(path), "mine\n", "its upload landed over theirs, uncommitted");
  assert.deepEqual(a.conflicts().map((c) => c.path), [path], "not resolved until it lands");
  await a.pullChanged();
  const r = await a.resolveConflict(path, "mine");
  assert.equal(r.resolved, true);
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual([...r.push!.uploaded, ...r.push!.identical], [path]);
  assert.equal(store.peekText(path), "mine\n");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a conflict with an old client's entry says what theirs is, not its synthetic version", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "one\n");
  await a.pushChanged();
  await peerPush(store, { [PATH]: "old client\n" });
  await put(a, PATH, "mine\n");
  const warnings = warningsOf(a);
  await a.pullChanged();
  const w = warnings.find((x) => x.code === "pull_conflict");
  assert.match(
    w?.message ?? "",
    /changed on the datastore \(another client's entry, no object version\)/,
  );
  assert.doesNotMatch(w?.message ?? "", /~[0-9a-f]{64}/);
});

Deno.test("a v1 commit whose every path an old client overwrote leaves the index as the old client wrote it", async () => {
  const { store, a, prepared } = await editOverwrittenBeforeCommit();
  const before = (await store.head(".datastore-index.json"))?.version;
  store.resetLog();
  const r = await a.commitPush(prepared);
  assert.deepEqual(r.overwritten, [PATH]);
  assert.equal((await store.head(".datastore-index.json"))?.version, before, "not rewritten");
  assert.deepEqual(store.log.filter((l) => l.op === "put").map((l) => l.key), []);
});

Deno.test("a conflict recorded at the commit, its resolution stopped after the upload and found again by a pull: resolve --mine commits, and the index names what the store holds", async () => {
  const { store, a } = await resolutionStoppedAfterUpload();
  assert.match(a.conflicts()[0]?.theirs?.version ?? "", /^~/, "found again against the old entry");
  const r = await a.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(PATH), "sluice edit\n");
  await assertIndexCurrent(store, { held: true });
  const fresh = await clone(store, "fresh");
  assert.deepEqual((await fresh.pullChanged()).uncommitted, []);
  assert.equal(await read(fresh, PATH), "sluice edit\n");
});

/** An old client that records no SHA-256 in its entries: a plain put, then an index rewrite. */
async function hashlessPush(store: InMemoryStore, path: string, text: string, when: string) {
  const bytes = new TextEncoder().encode(text);
  await store.put(path, bytes, PutModes.overwrite);
  const idx = JSON.parse(store.peekText(".datastore-index.json")!);
  idx.entries[path] = { key: path, size: bytes.length, lastModified: when };
  await store.put(
    ".datastore-index.json",
    new TextEncoder().encode(JSON.stringify(idx)),
    PutModes.overwrite,
  );
}

Deno.test("resolve --mine over an old client's entry with no hash never writes over bytes of the same size the user did not see", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, { [PATH]: "base-0\n" }, { noHash: true });
  const a = await clone(store, "a");
  await a.pullChanged();
  await put(a, PATH, "mine!!\n");
  await hashlessPush(store, PATH, "theirs-A!\n", "2026-08-02T00:00:00.000Z");
  assert.deepEqual((await a.pullChanged()).conflicts, [PATH]);
  await hashlessPush(store, PATH, "theirs-B?\n", "2026-08-03T00:00:00.000Z"); // same size, unseen
  const r = await a.resolveConflict(PATH, "mine");
  assert.equal(r.resolved, false, "a new conflict, with the bytes read");
  assert.equal(store.peekText(PATH), "theirs-B?\n");
  assert.equal(a.conflicts()[0]?.theirs?.version, (await store.head(PATH))?.version);
  assert.equal((await a.resolveConflict(PATH, "mine")).resolved, true, "resolved once seen");
  assert.equal(store.peekText(PATH), "mine!!\n");
});

for (const how of ["writes the same bytes", "deletes it"]) {
  Deno.test(`a data version an old client ${how} before the commit: the next push publishes it and settles its conflict`, async () => {
    const dv = "data/aws/ec2/m1/state/3/raw";
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    await put(a, dv, "v3 bytes\n");
    const prepared = await a.preparePush({ checkCreates: true });
    if (how === "deletes it") await peerPush(store, {}, { remove: [dv] });
    else await peerPush(store, { [dv]: "v3 bytes\n" });
    assert.deepEqual((await a.commitPush(prepared)).overwritten, [dv]);
    assert.deepEqual(a.conflicts().map((c) => c.path), [dv]);
    const r = await a.pushChanged();
    assert.deepEqual([...r.uploaded, ...r.identical], [dv]);
    assert.deepEqual(a.conflicts(), [], "settled by the publish");
    assert.deepEqual((await a.pullChanged()).conflicts, []);
    await assertIndexCurrent(store, { held: true });
  });
}

Deno.test("resolve --theirs where this cache's own upload replaced the old client's edit takes that upload, saying so, and commits it", async () => {
  const { store, a } = await resolutionStoppedAfterUpload();
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true);
  assert.ok(r.ownUpload, "the old client's bytes are no longer there: what is there is its own");
  assert.equal(r.tookNewer, undefined, "never claimed as a newer version of theirs");
  assert.equal(await read(a, PATH), "sluice edit\n");
  for (const l of r.setAside) assert.equal(await read(a, l), "sluice edit\n", "kept aside");
  assert.deepEqual(a.conflicts(), []);
  assert.equal(store.peekText(PATH), "sluice edit\n");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a deletion that found the file already gone leaves the entry of an old client that created it again before the commit", async () => {
  const { store, a } = await deletedHere();
  // An old client deletes it first: a's deletion finds nothing there.
  await peerPush(store, {}, { remove: [PATH] });
  const prepared = await a.preparePush();
  // Then, before a's commit, an old client writes it again and names it.
  await peerPush(store, { [PATH]: "old client again\n" });
  const r = await a.commitPush(prepared);
  const named = Object.keys(await peerReadIndex(store));
  assert.deepEqual(named, [PATH], "the old client's edit stays named: readers see it");
  assert.equal(store.peekText(PATH), "old client again\n");
  assert.deepEqual(r.conflicts, [PATH], "a's deletion meets it as a conflict");
  assert.deepEqual(r.deleted, []);
});

for (const checked of [true, false]) {
  Deno.test(
    `beside old clients, an old client's overwrite of an upload with no index write yet ${
      checked ? "is not named over" : "is named over without the check (control)"
    }`,
    async () => {
      const store = new InMemoryStore();
      const a = await clone(store, "a");
      await put(a, PATH, "one\n");
      await a.pushChanged();
      const before = (await readIndex(store, quick.retry))?.entries[PATH]?.v;
      await put(a, PATH, "sluice edit\n");
      const prepared = await a.preparePush({ checkCreates: checked });
      const uploaded = (await store.head(PATH))?.version;
      // An old client's upload over it; its push stops before its index write.
      await store.put(PATH, new TextEncoder().encode("old client edit\n"), PutModes.overwrite);
      const r = await a.commitPush(prepared);
      const named = (await readIndex(store, quick.retry))?.entries[PATH]?.v;
      const held = (await store.head(PATH))?.version;
      assert.notEqual(held, uploaded, "the old client's bytes replaced the upload");
      if (checked) {
        assert.deepEqual(r.overwritten, [PATH]);
        assert.equal(named, before, "the upload the store no longer holds is not named");
        assert.deepEqual(r.conflicts, [PATH], "a conflict with the old client's bytes");
        assert.equal(await read(a, PATH), "sluice edit\n", "the edit is kept in the cache");
      } else {
        assert.deepEqual(r.overwritten, []);
        assert.equal(named, uploaded, "the loss: the index names an upload the store lost");
      }
    },
  );
}

Deno.test("an index that holds an old client's entry has every write checked at the commit, checkCreates or not: its overwrite of an upload with no index write yet is not named over", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  // An old client pushed to this bucket: its entry names no object version.
  await peerPush(store, { "notes/theirs.txt": "an old client's file\n" });
  await put(a, PATH, "sluice create\n");
  const prepared = await a.preparePush(); // no checkCreates: nothing asked
  const uploaded = (await store.head(PATH))?.version;
  // An old client's upload over it; its push stops before its index write.
  await store.put(PATH, new TextEncoder().encode("old client edit\n"), PutModes.overwrite);
  const r = await a.commitPush(prepared);
  assert.notEqual((await store.head(PATH))?.version, uploaded);
  assert.deepEqual(r.overwritten, [PATH]);
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH], undefined, "not named over");
  assert.deepEqual(r.conflicts, [PATH], "a conflict with the old client's bytes");
  assert.equal(await read(a, PATH), "sluice create\n", "the create is kept in the cache");
});

Deno.test("a data version whose overwrite conflict settles by a publish keeps naming a copy set aside earlier", async () => {
  const dv = "data/aws/ec2/m1/state/3/raw";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  // An old client's version 3 takes the place of a's copy, never synced: set aside.
  await peerPush(store, { [dv]: "old client's v3\n" });
  await put(a, dv, "a's first v3\n", false);
  const aside = (await a.pullChanged()).setAside[0];
  assert.ok(aside);
  // The old client deletes it; a writes it again, and the old client writes the same bytes over a's upload.
  await peerPush(store, {}, { remove: [dv] });
  await a.pullChanged();
  await put(a, dv, "v3 bytes\n");
  const prepared = await a.preparePush({ checkCreates: true });
  await peerPush(store, { [dv]: "v3 bytes\n" });
  assert.deepEqual((await a.commitPush(prepared)).overwritten, [dv]);
  await a.pushChanged();
  assert.ok(
    JSON.stringify(a.conflicts()).includes(aside),
    `the set-aside copy ${aside} is still named: ${JSON.stringify(a.conflicts())}`,
  );
  assert.equal(await read(a, aside), "a's first v3\n");
});

/**
 * `a` deletes `notes/gone.md` (synced) with checkCreates, as beside old
 * clients; after its delete and before its commit, `c` (which never synced
 * the path) uploads its own create there, not committed yet, and then
 * withdraws it (its file became a directory). Found by the chaos checker
 * (seed 64900841, I7): the index named the deleted version for good.
 */
async function deletedThenRecreated() {
  const path = "notes/gone.md";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const c = await clone(store, "c");
  await put(a, path, "one\n");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  const prepared = await a.preparePush({ checkCreates: true });
  assert.equal(store.peek(path), undefined, "deleted before the commit");
  await put(c, path, "c's own\n");
  const uploaded = await c.preparePush();
  assert.equal(store.peekText(path), "c's own\n", "c's create, not committed");
  const r = await a.commitPush(prepared);
  return { store, a, c, path, r, uploaded };
}

Deno.test("a deletion whose object another writer's uncommitted create replaced before the commit: the entry of the deleted version goes", async () => {
  const { store, c, path, uploaded } = await deletedThenRecreated();
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
  await assertIndexCurrent(store);
  // c commits its create after all: named as c's.
  await c.commitPush(uploaded);
  const held = await store.head(path);
  assert.equal((await readIndex(store, quick.retry))?.entries[path]?.v, held?.version);
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a deletion whose object another writer's uncommitted create replaced, withdrawn later: the index names no missing object", async () => {
  const { store, c, path } = await deletedThenRecreated();
  // c's file became a directory: its push drops its own uncommitted create.
  await Deno.remove(`${c.cacheDir}/${path}`);
  await put(c, `${path}/part.md`, "part\n");
  await c.pushChanged();
  assert.equal(store.peek(path), undefined);
  await assertIndexCurrent(store, { held: true });
});

/**
 * The conflict of the test above, settled by the resolution `sluice status`
 * names for any conflict (`resolve --mine`) instead of a push: theirs holds
 * the very bytes this cache wrote, so publishing them is a create-only
 * write of equal bytes, which succeeds. The up-front refusal of a data
 * version's --mine must not refuse it, and never says "other bytes" of a
 * copy equal to this cache's.
 */
Deno.test("a data version an old client wrote with the same bytes before the commit: resolve --mine publishes it, never refused as other bytes", async () => {
  const dv = "data/aws/ec2/m1/state/3/raw";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, dv, "v3 bytes\n");
  const prepared = await a.preparePush({ checkCreates: true });
  await peerPush(store, { [dv]: "v3 bytes\n" });
  assert.deepEqual((await a.commitPush(prepared)).overwritten, [dv]);
  const rec = a.conflicts().find((c) => c.path === dv);
  assert.ok(rec?.theirs && rec.mine, JSON.stringify(rec));
  const r = await a.resolveConflict(dv, "mine").catch((e: Error) => e);
  assert.ok(
    !(r instanceof Error),
    `refused: ${r instanceof Error ? r.message : ""}`,
  );
  assert.equal(r.resolved, true);
  assert.deepEqual(a.conflicts(), []);
  await assertIndexCurrent(store, { held: true });
});
