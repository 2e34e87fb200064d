/**
 * `resolve --mine` (or `--merged`) of a data version's file whose push is
 * refused with `version_exists` (another writer's object holds the
 * version): the version's files here are set aside and the conflict is
 * settled. The refusal says which of the copies set aside are this cache's
 * (the copy the resolution would publish) and which it had synced from the
 * datastore, that the conflict is closed, what became of the `latest`
 * marker here, and to pull to get the datastore's version.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { VersionConflictError } from "../errors.ts";
import { clone, put, read } from "./clone_kit.ts";

const DIR = "data/shell/cmd/m1/out/1";
const META = `${DIR}/metadata.yaml`;
const RAW = `${DIR}/raw`;
const MARKER = "data/shell/cmd/m1/out/latest";

/** `b`'s own metadata of version 1 in conflict with `a`'s, `a`'s raw and marker synced here. */
async function lostVersion() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(b, META, "b's crashed metadata");
  await put(a, RAW, "a's raw");
  await put(a, META, "a's metadata");
  await put(a, MARKER, "1");
  await a.pushChanged();
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, [META]);
  assert.equal(await read(b, RAW), "a's raw", "the peer's raw is synced here");
  assert.equal(await read(b, MARKER), "1");
  return { store, a, b };
}

for (const resolution of ["mine", "merged"] as const) {
  Deno.test(`resolve --${resolution} of a data version's file lost to another writer's: the refusal says which copies set aside are this cache's and which it had synced, that the conflict is closed, and to pull`, async () => {
    const { b } = await lostVersion();
    if (resolution === "merged") await put(b, META, "b's merge", false);
    const err = await b.resolveConflict(META, resolution).then(
      () => assert.fail("not refused"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof VersionConflictError, String(err));
    assert.equal(err.code, "version_exists");
    const said = err.message;
    const at = (p: string) => {
      const i = err.setAsideTo.findIndex((l) => l.endsWith(`/${p}`));
      assert.ok(i >= 0, JSON.stringify(err.setAsideTo));
      return i;
    };
    const where = (p: string) => err.setAsideShown[at(p)];
    // The peer's raw, synced here, is never called this cache's copy.
    assert.doesNotMatch(said, /the local copy was not pushed/);
    const synced = said.indexOf("synced from the datastore");
    assert.ok(synced >= 0, said);
    const yours = said.indexOf(`your ${resolution === "mine" ? "copy" : "merge"} of ${META}`);
    assert.ok(yours >= 0, said);
    assert.ok(said.indexOf(where("metadata.yaml")) > yours, said);
    assert.ok(said.indexOf(where("metadata.yaml")) < synced, said);
    assert.ok(said.indexOf(where("raw")) > synced, said);
    assert.match(said, /conflict of [^ ]+metadata\.yaml is closed/);
    assert.match(said, /`latest` marker here[^.]* was removed/);
    assert.match(said, /Pull \(`sluice pull`\) to get the datastore's version/);
    // As said.
    assert.deepEqual(b.conflicts(), []);
    assert.equal(await read(b, MARKER), undefined);
    assert.equal(await read(b, RAW), undefined);
    assert.equal(await read(b, err.setAsideTo[at("raw")]), "a's raw");
    assert.equal(
      await read(b, err.setAsideTo[at("metadata.yaml")]),
      resolution === "mine" ? "b's crashed metadata" : "b's merge",
    );
    await b.pullChanged();
    assert.equal(await read(b, META), "a's metadata");
    assert.equal(await read(b, RAW), "a's raw");
    assert.equal(await read(b, MARKER), "1");
  });
}

Deno.test("resolve --mine of a data version's file lost to another writer's, its sibling in conflict too: the refusal calls the sibling this cache's, not synced, and says its conflict is closed as well", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  for (const f of [RAW, META]) await put(b, f, `b's crashed ${f}`);
  for (const f of [RAW, META]) await put(a, f, `a's ${f}`);
  await a.pushChanged();
  assert.equal((await b.pullChanged()).conflicts.length, 2);
  const err = await b.resolveConflict(META, "mine").then(
    () => assert.fail("not refused"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof VersionConflictError, String(err));
  const said = err.message;
  assert.doesNotMatch(said, /synced from the datastore/);
  assert.match(said, /other file\(s\) as written or changed here: [^ ]+\/raw in /);
  assert.match(said, /conflict of [^ ]+metadata\.yaml is closed, as are those of [^ ]+\/raw/);
  assert.doesNotMatch(said, /`latest` marker/, "no marker was here");
  assert.deepEqual(b.conflicts(), []);
  await b.pullChanged();
  assert.equal(await read(b, RAW), `a's ${RAW}`);
});
