/**
 * `resolve --theirs` of a conflict whose theirs is another writer's upload
 * that no index names. Once that upload is gone (its writer took it back,
 * putting the committed bytes back under a version its cut-off commit never
 * named, or replaced it by another upload it never committed), theirs is no
 * longer there to take: the resolution takes what a pull gives for the path
 * (nothing, while the store's object is not the one the index names), keeps
 * this cache's copy set aside, and says so; the way it names to take that
 * object then (`pull --adopt-uncommitted`) takes it. While the upload still
 * stands, nothing is taken and the conflict stays open; the adoption it
 * names then publishes the upload, and the resolution, run again, takes it.
 */
import assert from "node:assert/strict";
import type { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { type clone, read } from "./clone_kit.ts";
import { conflictWithUpload as uploadInConflict, indexed, PATH } from "./resolve_upload_kit.ts";

/**
 * `a`'s edit of `PATH` meets `c`'s upload over `b`'s committed edit, its
 * commit cut off: `a`'s conflict names that upload, which no index names.
 */
async function conflictWithUpload() {
  const { store, a, c, upload } = await uploadInConflict();
  assert.equal(a.conflicts()[0]?.theirs?.version, upload, "the conflict names c's upload");
  assert.notEqual(await indexed(store), upload);
  return { store, a, c, upload };
}

const gone = {
  // c's take-back: its upload deleted, the committed bytes put back under a
  // new version, and the index write naming them cut off.
  "put back unnamed": async (store: InMemoryStore, upload: string) => {
    await store.delete(PATH, { ifVersion: upload });
    await store.put(PATH, new TextEncoder().encode("b's edit"), PutModes.create);
    return "b's edit";
  },
  // c replaced its upload by another, its commit cut off again.
  "replaced by another upload": async (store: InMemoryStore, upload: string) => {
    await store.put(PATH, new TextEncoder().encode("c's second edit"), PutModes.update(upload));
    return "c's second edit";
  },
};

for (const [how, replace] of Object.entries(gone)) {
  Deno.test(`resolve --theirs whose theirs, another writer's upload no index names, is gone (${how}): takes what a pull gives, keeps the copy aside, and the adoption it names takes what is there`, async () => {
    const { store, a, upload } = await conflictWithUpload();
    const held = await replace(store, upload);
    const r = await a.resolveConflict(PATH, "theirs");
    assert.equal(r.resolved, true, JSON.stringify(r));
    assert.equal(r.theirsGone, upload);
    assert.deepEqual(a.conflicts(), []);
    assert.equal(await read(a, PATH), undefined, "nothing committed there to take");
    assert.equal(r.setAside.length, 1);
    assert.equal(await read(a, r.setAside[0]), "a's edit", "the copy is kept aside");
    assert.deepEqual(a.state.dirtyPaths(), []);
    assert.equal(store.peekText(PATH), held, "nothing written over the store's object");
    // As a fresh clone does, a pull skips the object until it is committed,
    // and the adoption the pull names takes it.
    assert.deepEqual((await a.pullChanged()).uncommitted, [PATH]);
    const adopted = await a.pullChanged({ adoptUncommitted: [PATH] });
    assert.deepEqual(adopted.adopted, [PATH], JSON.stringify(adopted));
    assert.equal(await read(a, PATH), held);
    assert.equal(await indexed(store), (await store.head(PATH))?.version);
    assert.deepEqual(a.conflicts(), []);
  });
}

Deno.test("resolve --theirs whose theirs, another writer's upload no index names, still stands: not taken, the conflict open, and the adoption it names publishes the upload for the resolution to take", async () => {
  const { store, a, upload } = await conflictWithUpload();
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.equal(r.theirsGone, undefined);
  assert.deepEqual(a.conflicts().map((c) => c.path), [PATH], "the conflict stays open");
  assert.equal(await read(a, PATH), "a's edit", "the copy stays in place");
  // Its writer gone for good: the adoption publishes its upload.
  const adopted = await a.pullChanged({ adoptUncommitted: [PATH] });
  assert.deepEqual(adopted.adopted, [PATH], JSON.stringify(adopted));
  assert.equal(await indexed(store), upload);
  assert.deepEqual(a.conflicts().map((c) => c.theirs?.version), [upload]);
  assert.equal(await read(a, PATH), "a's edit", "the copy stays, in conflict");
  const again = await a.resolveConflict(PATH, "theirs");
  assert.equal(again.resolved, true, JSON.stringify(again));
  assert.equal(await read(a, PATH), "c's edit");
  assert.equal(await read(a, again.setAside[0]), "a's edit");
  assert.deepEqual(a.conflicts(), []);
});

Deno.test("resolve --theirs whose theirs, another writer's upload no index names, was deleted since with nothing in its place: takes the datastore's side (nothing), the copy kept aside", async () => {
  const { store, a, upload } = await conflictWithUpload();
  await store.delete(PATH, { ifVersion: upload });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.deepEqual(a.conflicts(), []);
  assert.equal(await read(a, PATH), undefined);
  assert.equal(await read(a, r.setAside[0]), "a's edit");
  assert.deepEqual(a.state.dirtyPaths(), []);
});

/** The warnings of `a` about `PATH` while `run` goes. */
async function warnedOf(a: Awaited<ReturnType<typeof clone>>, run: () => Promise<unknown>) {
  const said: string[] = [];
  const listen = (w: { path?: string; message: string }) => {
    if (w.path === PATH) said.push(w.message);
  };
  a.events.on("warning", listen);
  try {
    await run();
  } finally {
    a.events.off("warning", listen);
  }
  return said;
}

Deno.test("resolve --theirs whose theirs, another writer's upload no index names, still stands: its pull's warning says the copy goes back in place, and that after the adoption the resolution is run again", async () => {
  const { a } = await conflictWithUpload();
  const said = await warnedOf(a, () => a.resolveConflict(PATH, "theirs"));
  assert.equal(said.length, 1, JSON.stringify(said));
  assert.equal(await read(a, PATH), "a's edit");
  assert.doesNotMatch(said[0], /Nothing is at the path in the cache now/);
  assert.match(said[0], /your copy[^.]* goes back in place/);
  assert.match(said[0], /the conflict stays open/);
  assert.doesNotMatch(said[0], /and takes it/);
  const adopt = said[0].indexOf(`sluice pull --adopt-uncommitted ${PATH}`);
  const again = said[0].lastIndexOf(`sluice resolve ${PATH} --theirs`);
  assert.ok(adopt >= 0 && again > adopt, said[0]);
});

Deno.test("resolve --theirs whose theirs, another writer's upload no index names, is gone: its pull's warning says nothing is at the path, as is so, and that the adoption takes what is there", async () => {
  const { store, a, upload } = await conflictWithUpload();
  await gone["replaced by another upload"](store, upload);
  const said = await warnedOf(a, () => a.resolveConflict(PATH, "theirs"));
  assert.equal(said.length, 1, JSON.stringify(said));
  assert.equal(await read(a, PATH), undefined);
  assert.match(said[0], /Nothing is at the path in the cache now/);
  assert.match(said[0], /`sluice pull --adopt-uncommitted notes\/n\.md` publishes .* and takes it/);
});
