/**
 * A resolution whose process read the conflict before another process over
 * the cache recorded a newer conflict of the path (its pull found a newer
 * version of theirs): clearing the record it resolves keeps that newer one,
 * with the copies set aside it names, and the resolution says so
 * (`recordedMeanwhile`, not resolved).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, processOver, put, read } from "./clone_kit.ts";
import { PULL_SET_ASIDE_REASON, setAsideCopies } from "./conflicts.ts";
import { resolveConflict, ResolveRefusedError, storeResolveDeps } from "./resolve.ts";
import type { SyncService } from "./service.ts";
import { setAsideIn } from "../transfer/cache_state.ts";
import { sha256Hex } from "../hash.ts";

const PATH = "notes/a.md";

/** Deps of a resolution run by `svc` as it is, without taking in first what other processes saved. */
const depsOf = (svc: SyncService) =>
  storeResolveDeps(svc, {
    pushOnly: (paths) => svc.pushChanged({ only: paths }),
    pull: (prefixes) => svc.pullChanged({ prefixes }),
  });

/**
 * Process `a`'s conflict of PATH (its edit, theirs "two"), then a newer
 * version of theirs ("three") recorded by process `b`'s pull after `a` read
 * the records; with `aside`, `b`'s record names a copy set aside too.
 */
async function recordedMeanwhile(aside: boolean) {
  const store = new InMemoryStore();
  const peer = await clone(store, "peer");
  await put(peer, PATH, "one");
  await peer.pushChanged();
  const cacheDir = await Deno.makeTempDir();
  const a = await processOver(store, cacheDir, 1);
  const b = await processOver(store, cacheDir, 2);
  await a.pullChanged();
  await put(a, PATH, "a's edit");
  await put(peer, PATH, "two");
  await peer.pushChanged();
  assert.deepEqual((await a.pullChanged()).conflicts, [PATH]);
  const read = a.conflicts()[0]?.theirs?.version;
  await put(peer, PATH, "three");
  await peer.pushChanged();
  const three = (await store.head(PATH))?.version;
  await b.pullChanged();
  assert.equal(b.conflicts()[0]?.theirs?.version, three, "the other process recorded it");
  assert.notEqual(read, three);
  let copy: string | undefined;
  if (aside) {
    const from = `${await Deno.makeTempDir()}/a.md`;
    await Deno.writeTextFile(from, "an older copy");
    copy = await setAsideIn(b.cache.stateDir, from, PATH, {
      reason: PULL_SET_ASIDE_REASON,
      at: 5,
      conflict: { mine: { hash: "0".repeat(64), size: 13 }, theirs: null, reason: "both" },
    });
    await b.state.conflicts.keepNaming(PATH, [{ location: copy, hash: "0".repeat(64), size: 13 }]);
  }
  return { store, cacheDir, a, three, copy };
}

for (const aside of [false, true]) {
  for (const resolution of ["mine", "merged", "theirs"] as const) {
    Deno.test(
      `resolve --${resolution} of a conflict another process over the cache recorded anew since${
        aside ? ", naming a copy set aside" : ""
      }: the newer record stays, and the resolution says so`,
      async () => {
        const { store, cacheDir, a, three, copy } = await recordedMeanwhile(aside);
        if (resolution === "merged") await put(a, PATH, "a's merge", false);
        const r = await resolveConflict(depsOf(a), PATH, resolution);
        assert.equal(store.peekText(PATH), "three", "nothing written over the newer version");
        assert.equal(r.resolved, false, JSON.stringify(r));
        assert.equal(r.recordedMeanwhile, true);
        assert.deepEqual(r.conflicts, [PATH]);
        assert.equal(r.published, undefined);
        const open = (await processOver(store, cacheDir, 3)).conflicts().find((c) =>
          c.path === PATH
        );
        assert.equal(open?.theirs?.version, three, "the newer record stands");
        assert.equal(a.conflicts().find((c) => c.path === PATH)?.theirs?.version, three);
        const named = setAsideCopies(open).map((c) => c.location);
        if (copy) assert.ok(named.includes(copy), `the copy set aside stays named: ${named}`);
        for (const l of r.setAside) assert.ok(named.includes(l), `${l} is named: ${named}`);
        assert.equal(
          await read(a, PATH),
          resolution === "theirs" ? "three" : resolution === "mine" ? "a's edit" : "a's merge",
        );
        if (resolution === "theirs") {
          // Your edit, set aside by the resolution, is named by the open record.
          assert.equal(r.setAside.length, 1);
          const held = `${cacheDir}/.sluice/${r.setAside[0].slice(".sluice/".length)}`;
          assert.equal(await Deno.readTextFile(held), "a's edit");
        }
      },
    );
  }
}

Deno.test("resolve --theirs that met a conflict another process recorded anew: that record names your edit where the resolution set it aside, and a --mine of it publishes your edit", async () => {
  const { store, cacheDir, a, three } = await recordedMeanwhile(false);
  const edit = await sha256Hex(new TextEncoder().encode("a's edit"));
  const r = await resolveConflict(depsOf(a), PATH, "theirs");
  assert.equal(r.recordedMeanwhile, true);
  assert.equal(await read(a, PATH), "three", "the datastore's copy is at the path");
  const [moved] = r.setAside;
  for (const svc of [a, await processOver(store, cacheDir, 3)]) {
    const open = svc.conflicts().find((c) => c.path === PATH);
    assert.equal(open?.theirs?.version, three);
    assert.deepEqual(
      open?.mine,
      { location: moved, hash: edit, size: 8 },
      "your edit is where the resolution set it aside, not at the path",
    );
    assert.ok(!setAsideCopies(open).slice(0, -1).some((c) => c.location === moved));
  }
  const mine = await resolveConflict(depsOf(a), PATH, "mine");
  assert.equal(mine.resolved, true, JSON.stringify(mine));
  assert.equal(store.peekText(PATH), "a's edit", "your edit is published, not theirs again");
  assert.equal(await read(a, PATH), "a's edit");
});

Deno.test("resolve --mine of a record naming your copy in place where the path holds the copy a pull synced there is refused: nothing is published, the conflict stays open", async () => {
  const { store, a, three } = await recordedMeanwhile(false);
  const edit = await sha256Hex(new TextEncoder().encode("a's edit"));
  const r = await resolveConflict(depsOf(a), PATH, "theirs");
  // The record as a build without the fix above left it: your edit named
  // at the path, which holds the datastore's copy, synced, since.
  const open = a.conflicts().find((c) => c.path === PATH)!;
  await a.state.conflicts.record([{ ...open, mine: { location: PATH, hash: edit, size: 8 } }]);
  await assert.rejects(
    () => resolveConflict(depsOf(a), PATH, "mine"),
    (e: Error) => e instanceof ResolveRefusedError && e.code === "not_found",
  );
  assert.equal(store.peekText(PATH), "three");
  assert.equal(a.conflicts().find((c) => c.path === PATH)?.theirs?.version, three);
  const held = `${a.cache.stateDir}/${r.setAside[0].slice(".sluice/".length)}`;
  assert.equal(await Deno.readTextFile(held), "a's edit", "your edit stays aside");
});

for (const aside of [false, true]) {
  Deno.test(
    `resolve --theirs whose pull is blocked after it met a conflict another process recorded anew${
      aside ? ", naming a copy set aside" : ""
    }: the newer record stays, naming every copy, and the refusal says so`,
    async () => {
      const { store, cacheDir, a, three, copy } = await recordedMeanwhile(aside);
      const edit = await sha256Hex(new TextEncoder().encode("a's edit"));
      const deps = depsOf(a);
      // A file made where the path's directory was, once the resolution moved
      // the copy aside (its directory left empty, removed): the pull is blocked.
      const pull: typeof deps.pull = async (...args) => {
        await Deno.writeTextFile(`${cacheDir}/notes`, "a file in the way");
        return await deps.pull(...args);
      };
      await assert.rejects(
        () => resolveConflict({ ...deps, pull }, PATH, "theirs"),
        (e: Error) =>
          e instanceof ResolveRefusedError && e.code === "unsafe_path" &&
          /another process over this cache recorded a newer conflict/i.test(e.message),
      );
      assert.equal(store.peekText(PATH), "three");
      for (const svc of [a, await processOver(store, cacheDir, 3)]) {
        const open = svc.conflicts().find((c) => c.path === PATH);
        assert.equal(open?.theirs?.version, three, "the newer record stands");
        assert.equal(open?.theirs?.hash, await sha256Hex(new TextEncoder().encode("three")));
        const named = setAsideCopies(open);
        if (copy) assert.ok(named.some((c) => c.location === copy), "the other's copy stays named");
        const held = named.find((c) => c.hash === edit);
        assert.ok(held, `your edit is named: ${JSON.stringify(open)}`);
        const at = `${cacheDir}/.sluice/${held.location.slice(".sluice/".length)}`;
        assert.equal(await Deno.readTextFile(at), "a's edit");
        for (const c of named) {
          await Deno.stat(`${cacheDir}/.sluice/${c.location.slice(".sluice/".length)}`);
        }
      }
    },
  );
}
