import assert from "node:assert/strict";
import { LocalCache } from "../transfer/cache.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { SluiceError } from "../errors.ts";
import { sha256HexSync } from "../hash.ts";
import type { PullResult } from "./pull.ts";
import { emptyPushResult, type PushResult } from "./push.ts";
import { resolveConflict, type ResolveDeps } from "./resolve.ts";
import { SyncState } from "./state.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const h = (s: string) => sha256HexSync(enc(s));

const emptyPull = (): PullResult => ({
  fetched: [],
  removed: [],
  conflicts: [],
  setAside: [],
  uncommitted: [],
  unreadable: [],
  dropped: [],
  unchanged: false,
  bytes: 0,
});

/** A cache with one conflict on `path`, and deps whose push and pull record their calls. */
async function setup(path: string, options: { mineAt?: string } = {}) {
  const dir = await Deno.makeTempDir({ prefix: "sluice-resolve-test-" });
  const cache = new LocalCache(dir, () => 0);
  const state = await SyncState.open(dir);
  const mineAt = options.mineAt ?? path;
  await cache.write(mineAt, enc("mine"));
  const rec: ConflictRecord = {
    path,
    mine: { location: mineAt, hash: h("mine"), size: 4 },
    theirs: { version: "v2", hash: h("theirs"), size: 6 },
    base: "v1",
    foundBy: "pull",
    at: 0,
    reason: "both changed",
  };
  await state.conflicts.record([rec]);
  const calls: { push: string[][]; pull: string[][] } = { push: [], pull: [] };
  let pushAnswer: PushResult = { ...emptyPushResult(), uploaded: [path] };
  let pullAnswer: PullResult = { ...emptyPull(), fetched: [path] };
  const deps: ResolveDeps = {
    cache,
    state,
    pushOnly: (paths) => {
      calls.push.push([...paths]);
      // What the push saw: the path dirty, synced at their version.
      assert.deepEqual(state.dirtyPaths(), [path]);
      assert.equal(state.synced(path)?.version, "v2");
      return Promise.resolve(pushAnswer);
    },
    pull: (prefixes) => {
      calls.pull.push([...prefixes]);
      assert.equal(state.synced(path), undefined, "forgotten before the pull");
      return Promise.resolve(pullAnswer);
    },
  };
  return {
    dir,
    cache,
    state,
    deps,
    calls,
    answerPush: (r: PushResult) => pushAnswer = r,
    answerPull: (r: PullResult) => pullAnswer = r,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("--mine rebases on their version and pushes exactly the path; the conflict is gone", async () => {
  await using t = await setup("config/a.yaml");
  const r = await resolveConflict(t.deps, "config/a.yaml", "mine");
  assert.deepEqual(t.calls, { push: [["config/a.yaml"]], pull: [] });
  assert.equal(r.resolved, true);
  assert.equal(r.published, "v2");
  assert.equal(t.state.conflicts.has("config/a.yaml"), false);
  assert.deepEqual(r.setAside, []);
});

Deno.test("--mine puts a set-aside copy back first, setting aside a third copy in its place", async () => {
  await using t = await setup("notes/n.txt", { mineAt: ".sluice/set-aside/x/notes/n.txt" });
  await t.cache.write("notes/n.txt", enc("neither side"));
  const r = await resolveConflict(t.deps, "notes/n.txt", "mine");
  assert.equal(new TextDecoder().decode(await t.cache.read("notes/n.txt") ?? undefined), "mine");
  assert.equal(r.setAside.length, 1);
  assert.equal(
    new TextDecoder().decode(await t.cache.read(r.setAside[0]) ?? undefined),
    "neither side",
  );
});

Deno.test("--mine sets aside an edit made here since that holds their old bytes (chaos seed 208300097)", async () => {
  // The pull that found the conflict set mine aside; a later pull took a
  // newer version (v3) at the path, the conflict left open; the user then
  // wrote the path back to theirs' bytes (a marker moved one back) and
  // marked it dirty. That copy is an edit of this cache's, not theirs.
  await using t = await setup("notes/n.txt", { mineAt: ".sluice/set-aside/x/notes/n.txt" });
  await t.cache.write("notes/n.txt", enc("theirs"));
  t.state.setSynced("notes/n.txt", { hash: h("later"), version: "v3", size: 5 });
  await t.state.markDirty("notes/n.txt");
  t.deps.pushOnly = () => Promise.resolve({ ...emptyPushResult(), uploaded: ["notes/n.txt"] });
  const r = await resolveConflict(t.deps, "notes/n.txt", "mine");
  assert.equal(new TextDecoder().decode(await t.cache.read("notes/n.txt") ?? undefined), "mine");
  assert.equal(r.setAside.length, 1, "the edit made here is set aside, not written over");
  assert.equal(new TextDecoder().decode(await t.cache.read(r.setAside[0]) ?? undefined), "theirs");
});

Deno.test("a push that meets a newer version of theirs leaves the path in conflict", async () => {
  await using t = await setup("config/a.yaml");
  t.answerPush({ ...emptyPushResult(), conflicts: ["config/a.yaml"] });
  await t.cache.write("config/a.yaml", enc("a merge"));
  const r = await resolveConflict(t.deps, "config/a.yaml", "merged");
  assert.equal(r.resolved, false);
  assert.equal(r.published, undefined);
  assert.deepEqual(r.conflicts, ["config/a.yaml"]);
});

Deno.test("--merged over a file that still holds exactly my copy is refused (not_merged): nothing is pushed, the conflict stays", async () => {
  await using t = await setup("config/a.yaml");
  await assert.rejects(resolveConflict(t.deps, "config/a.yaml", "merged"), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "not_merged");
    assert.equal(e.exitCode, 1);
    assert.match(e.message, /holds the same bytes as your copy when the conflict was found/);
    assert.match(e.message, /would drop their change. Nothing was changed/);
    assert.match(e.message, /sluice resolve config\/a\.yaml --theirs/);
    assert.match(e.message, /sluice resolve config\/a\.yaml --mine/);
    return true;
  });
  assert.deepEqual(t.calls, { push: [], pull: [] });
  assert.equal(t.state.conflicts.has("config/a.yaml"), true);
  // Once it differs from my copy, it is a merge; --mine publishes mine as it is.
  await t.cache.write("config/a.yaml", enc("mine and theirs"));
  assert.equal((await resolveConflict(t.deps, "config/a.yaml", "merged")).resolved, true);
});

Deno.test("--theirs sets the local copy aside, forgets the path and pulls it", async () => {
  await using t = await setup("config/a.yaml");
  const r = await resolveConflict(t.deps, "config/a.yaml", "theirs");
  assert.deepEqual(t.calls, { push: [], pull: [["config/a.yaml"]] });
  assert.equal(r.resolved, true);
  assert.equal(r.setAside.length, 1);
  assert.equal(t.cache.exists("config/a.yaml"), false, "the (fake) pull wrote nothing back");
  assert.equal(t.state.conflicts.has("config/a.yaml"), false);
  assert.deepEqual(t.state.dirtyPaths(), []);
});

Deno.test("no conflict, or the managed lockfile with --mine, is refused and changes nothing", async () => {
  await using t = await setup("config/a.yaml");
  await assert.rejects(resolveConflict(t.deps, "other", "mine"), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "not_found");
    assert.match(e.message, /no unresolved conflict for other/);
    return true;
  });
  await using l = await setup("config/upstream_extensions.json");
  await assert.rejects(resolveConflict(l.deps, "config/upstream_extensions.json", "mine"), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "lockfile_guarded");
    assert.equal(e.exitCode, 1, "a refusal, not a configuration error");
    assert.match(e.message, /managed lockfile.*`sluice lockfile add <name> '<entry JSON>'`/);
    return true;
  });
  assert.deepEqual(l.calls, { push: [], pull: [] });
  assert.equal(l.state.conflicts.has("config/upstream_extensions.json"), true);
});

Deno.test("--merged with nothing at the path is refused: nothing is pushed and theirs stays (a deletion is --mine's)", async () => {
  await using t = await setup("config/a.yaml");
  await Deno.remove(`${t.dir}/config/a.yaml`);
  await assert.rejects(resolveConflict(t.deps, "config/a.yaml", "merged"), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "not_found");
    assert.match(
      e.message,
      /no file at config\/a.yaml to publish as your merge; nothing was changed/,
    );
    assert.match(e.message, /theirs \(version v2\) stays on the datastore/);
    // Your copy was that file: --mine alone would be refused too, so it is not offered as is.
    assert.match(
      e.message,
      /put it back there to publish it with `sluice resolve config\/a\.yaml --mine`/,
    );
    assert.doesNotMatch(e.message, /to publish your copy as it was, run/);
    return true;
  });
  assert.deepEqual(t.calls, { push: [], pull: [] });
  assert.equal(t.state.conflicts.has("config/a.yaml"), true);
  assert.deepEqual(t.state.dirtyPaths(), []);
});

Deno.test("--mine or --merged over a copy no push can publish (a link, a directory) is refused before anything changes", async () => {
  for (const resolution of ["mine", "merged"] as const) {
    for (const kind of ["link", "dir"] as const) {
      await using t = await setup("config/app.yaml");
      const file = `${t.dir}/config/app.yaml`;
      await Deno.remove(file);
      if (kind === "link") {
        await Deno.writeTextFile(`${t.dir}/elsewhere.yaml`, "mine");
        await Deno.symlink(`${t.dir}/elsewhere.yaml`, file);
      } else await Deno.mkdir(file);
      await assert.rejects(
        resolveConflict(t.deps, "config/app.yaml", resolution),
        (e: unknown) =>
          e instanceof SluiceError && e.code === "unsafe_path" &&
          /Nothing was changed: the conflict stays open/.test(e.message),
      );
      assert.equal(t.state.conflicts.get("config/app.yaml")?.theirs?.version, "v2", kind);
      assert.deepEqual(t.calls.push, [], "nothing pushed");
      assert.deepEqual(t.state.dirtyPaths(), []);
    }
  }
});

Deno.test("--mine of a copy deleted here since the conflict recorded it is refused: theirs is never deleted in its name", async () => {
  await using t = await setup("config/a.yaml");
  await Deno.remove(`${t.dir}/config/a.yaml`);
  await assert.rejects(resolveConflict(t.deps, "config/a.yaml", "mine"), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "not_found");
    assert.equal(e.exitCode, 1);
    assert.match(e.message, /Your copy of config\/a.yaml .* is gone from the cache/);
    assert.match(e.message, /Nothing was changed: the conflict stays open/);
    assert.match(e.message, /sluice resolve config\/a\.yaml --theirs/);
    return true;
  });
  assert.deepEqual(t.calls, { push: [], pull: [] });
  assert.equal(t.state.conflicts.get("config/a.yaml")?.theirs?.version, "v2");
  assert.deepEqual(t.state.dirtyPaths(), []);
});
