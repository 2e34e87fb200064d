import assert from "node:assert/strict";
import { erasureWithStore as fresh } from "./erasure_fixture.ts";
import { ErasureRefusedError, resolveHeldVersions } from "./erasure_held.ts";
import { emptyJournal, readErasureJournal, writeErasureJournal } from "./erasure_journal.ts";
import { PutModes } from "../sync/ports.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const D = "data/t/m/d";

Deno.test("resolveHeldVersions keep releases the hold and leaves the files dirty", async () => {
  const f = await fresh();
  await f.dirty(`${D}/2/raw`, "b");
  await writeErasureJournal(f.cache, {
    ...emptyJournal(),
    held: [{
      dirs: [`${D}/2`, `${D}/3`],
      problems: [{ dir: `${D}/2`, reason: "it existed in the cache before the run started" }],
      uploads: [],
      at: 0,
    }],
  });
  assert.deepEqual(await resolveHeldVersions(f, [`${D}/2/`], "keep"), [`${D}/2`]);
  const j = await readErasureJournal(f.cache);
  assert.deepEqual(j.held.map((h) => h.dirs), [[`${D}/3`]]);
  assert.deepEqual(j.held[0].problems, []);
  assert.deepEqual(f.state.dirtyPaths(), [`${D}/2/raw`]);
});

Deno.test("resolveHeldVersions discard deletes the latest marker a held run's push created (a journal of an earlier release names it); keep leaves it to the next push", async () => {
  for (const decision of ["discard", "keep"] as const) {
    const f = await fresh();
    await f.dirty(`${D}/1/raw`, "a");
    await f.dirty(`${D}/latest`, "1");
    const raw = await f.store.put(`${D}/1/raw`, enc("a"), PutModes.create);
    const marker = await f.store.put(`${D}/latest`, enc("1"), PutModes.create);
    await writeErasureJournal(f.cache, {
      ...emptyJournal(),
      held: [{
        dirs: [`${D}/1`],
        problems: [{ dir: `${D}/1`, reason: "it existed in the cache before the run started" }],
        uploads: [
          { path: `${D}/1/raw`, version: raw.version },
          { path: `${D}/latest`, version: marker.version },
        ],
        at: 0,
      }],
    });
    assert.deepEqual(await resolveHeldVersions(f, [`${D}/1`], decision), [`${D}/1`]);
    const j = await readErasureJournal(f.cache);
    assert.deepEqual(j.held, [], decision);
    assert.deepEqual(j.uploads, [], decision);
    if (decision === "discard") {
      assert.deepEqual(f.store.keys(), [], "nothing of the run is left on the store");
      assert.deepEqual(f.state.dirtyPaths(), []);
    } else {
      assert.equal(f.store.peekText(`${D}/latest`), "1", "left for the next push to name");
      assert.deepEqual(f.state.dirtyPaths(), [`${D}/1/raw`, `${D}/latest`]);
    }
  }
});

Deno.test("a latest marker the held run's push named is resolved with its versions, once none of that data's versions is left held", async () => {
  for (const decision of ["discard", "keep"] as const) {
    const f = await fresh();
    const E = "data/t/m/e";
    await writeErasureJournal(f.cache, {
      ...emptyJournal(),
      held: [{
        dirs: [`${D}/1`, `${D}/2`, `${D}/latest`, `${E}/1`, `${E}/latest`],
        problems: [],
        uploads: [],
        at: 0,
      }],
    });
    // D's marker stays held while D/2 is; E's goes with E/1.
    assert.deepEqual(
      await resolveHeldVersions(f, [`${D}/1`, `${E}/1`], decision),
      [`${D}/1`, `${E}/1`, `${E}/latest`],
      decision,
    );
    let j = await readErasureJournal(f.cache);
    assert.deepEqual(j.held.map((h) => h.dirs), [[`${D}/2`, `${D}/latest`]], decision);
    assert.deepEqual(await resolveHeldVersions(f, [`${D}/2`], decision), [
      `${D}/2`,
      `${D}/latest`,
    ]);
    j = await readErasureJournal(f.cache);
    assert.deepEqual(j.held, [], decision);
  }
});

Deno.test("ErasureRefusedError names the lost lock, the held directories, why, and both ways out; nothing deleted", () => {
  const e = new ErasureRefusedError(
    [{ key: "data/t/m/.lock", newHolder: "b@host" }],
    [`${D}/2`],
    [{ dir: `${D}/2`, reason: "it existed in the cache before the run started" }],
  );
  assert.equal(e.code, "erasure_refused");
  assert.deepEqual(e.held, [`${D}/2`]);
  for (
    const part of [
      "data/t/m/.lock (now held by b@host)",
      `${D}/2: it existed in the cache before the run started`,
      "nothing was deleted",
      "--discard",
      "--keep",
    ]
  ) assert.ok(e.message.includes(part), `${part} in: ${e.message}`);
});
