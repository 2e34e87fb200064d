/**
 * `resolve --theirs` while another process over the cache records a newer
 * conflict of the path after the resolution cleared its record, during its
 * pull (its own pull planned before the resolution moved the copy aside):
 * the resolution never reports the path done while that record is open,
 * and never writes the record it resolved over it. Nor is it done when its
 * pull sets aside a copy written at the path while it ran.
 */
import assert from "node:assert/strict";
import { processOver, read } from "./clone_kit.ts";
import { type ConflictRecord, setAsideCopies } from "./conflicts.ts";
import { defaultStateDir } from "../transfer/cache.ts";
import { setAsideReleased } from "../transfer/cache_state.ts";
import type { SyncService } from "./service.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { hashOf, PATH, saved, theirsThree } from "./resolve_theirs_two_kit.ts";

/**
 * Process `a`'s conflict of PATH (its edit, theirs "two"), "three" published
 * since; process `b` over the same cache. Armed: at the first store call
 * after the resolution cleared its record, `b` records the conflict its
 * pull found (your edit in place, theirs "three"), then `during` runs.
 */
async function conflictOfA() {
  const { base, arm, cacheDir, a, b, three } = await theirsThree();
  const one = a.state.synced(PATH)?.version;
  const newer: ConflictRecord = {
    path: PATH,
    mine: { location: PATH, hash: await hashOf("a's edit"), size: 8 },
    theirs: { version: three, hash: await hashOf("three"), size: 5 },
    ...(one ? { base: one } : {}),
    foundBy: "pull",
    at: 7,
    reason: "changed here and on the datastore",
  };
  const recordedBy = (b: SyncService | undefined, during: () => Promise<void> = async () => {}) =>
    arm(async () => {
      assert.equal(await saved(cacheDir), undefined, "the resolution cleared its record first");
      await b?.state.conflicts.record([newer]);
      await during();
    });
  return { store: base, cacheDir, a, b, three, recordedBy };
}

Deno.test("resolve --theirs whose pull runs while another process over the cache records a newer conflict of the path is not done: the record stays open, naming your edit where it was set aside", async () => {
  const { cacheDir, a, b, three, recordedBy } = await conflictOfA();
  recordedBy(b);
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(await read(a, PATH), "three", "the datastore's copy is at the path");
  assert.equal((await saved(cacheDir))?.theirs?.version, three, "the newer record is open");
  assert.equal(r.resolved, false, `reported done: ${JSON.stringify(r)}`);
  assert.equal(r.recordedMeanwhile, true);
  assert.deepEqual(r.conflicts, [PATH]);
  assert.deepEqual(r.leftBehind.conflicts, [PATH]);
  assert.equal(r.setAside.length, 1);
  const [moved] = r.setAside;
  assert.equal(await setAsideReleased(defaultStateDir(cacheDir), moved), false, "not released");
  for (const svc of [a, await processOver(new InMemoryStore(), cacheDir, 3)]) {
    const open = svc.conflicts().find((c) => c.path === PATH);
    assert.equal(open?.theirs?.version, three);
    assert.equal(open?.mine?.location, moved, "your edit is named where it was set aside");
  }
  assert.equal(await Deno.readTextFile(`${cacheDir}/${moved}`), "a's edit");
});

for (const how of ["blocked", "failed"] as const) {
  Deno.test(`resolve --theirs whose pull is ${how} after another process over the cache recorded a newer conflict of the path, once the resolution cleared its record: that record stays, naming your edit`, async () => {
    const { store, cacheDir, a, b, three, recordedBy } = await conflictOfA();
    recordedBy(b, async () => {
      if (how === "failed") throw new Error("the datastore went away");
      // A file where the path's directory was, emptied by the move: the pull is blocked.
      await Deno.writeTextFile(`${cacheDir}/notes`, "a file in the way");
    });
    await assert.rejects(() => a.resolveConflict(PATH, "theirs"));
    assert.equal(store.peekText(PATH), "three");
    const edit = await hashOf("a's edit");
    for (const svc of [a, await processOver(new InMemoryStore(), cacheDir, 3)]) {
      await svc.state.conflicts.refresh();
      const open = svc.conflicts().find((c) => c.path === PATH);
      assert.equal(
        open?.theirs?.version,
        three,
        `the newer record stands: ${JSON.stringify(open)}`,
      );
      const held = setAsideCopies(open).find((c) => c.hash === edit) ??
        (open?.mine?.hash === edit ? open.mine : undefined);
      assert.ok(held, `your edit is named: ${JSON.stringify(open)}`);
      assert.equal(
        await Deno.readTextFile(`${cacheDir}/${held.location}`),
        "a's edit",
        "the copy named holds your edit",
      );
    }
  });
}

Deno.test("resolve --theirs whose pull sets aside a new copy written at the path while it ran is not done: both copies are kept, and the path is left in conflict", async () => {
  const { cacheDir, a, recordedBy } = await conflictOfA();
  // No other process here: the hook only writes the copy, as the user does.
  recordedBy(undefined, async () => {
    await Deno.mkdir(`${cacheDir}/notes`, { recursive: true });
    await Deno.writeTextFile(`${cacheDir}/${PATH}`, "written meanwhile");
  });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.deepEqual(r.conflicts, [PATH]);
  assert.deepEqual(r.leftBehind.conflicts, [PATH]);
  const open = a.conflicts().find((c) => c.path === PATH);
  const texts = await Promise.all(
    setAsideCopies(open).map((c) => Deno.readTextFile(`${cacheDir}/${c.location}`)),
  );
  assert.deepEqual(texts.sort(), ["a's edit", "written meanwhile"], "both copies are named");
});
