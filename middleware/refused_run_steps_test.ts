import assert from "node:assert/strict";
import { mockPushContext } from "../packages/testing/mod.ts";
import { ModelLockLostError } from "../sync/lock_errors.ts";
import { ErasureRefusedError } from "./erasure.ts";
import { emptyJournal } from "./erasure_journal.ts";
import { refuse } from "./refused_run_steps.ts";

const DIR = "data/t/m/out/1";
const lost = () => new ModelLockLostError([{ key: "data/t/m/.lock", newHolder: "b@host (pid 2)" }]);

/** A push context whose run wrote `DIR` (its files in the cache) under the lock now lost. */
async function runWrote(preexisting: ReadonlySet<string> = new Set()) {
  const m = await mockPushContext({ written: [DIR], preexisting, models: ["t/m"] });
  await m.cache.write(`${DIR}/raw`, new TextEncoder().encode("run's output"));
  await m.cache.write(`${DIR}/metadata.yaml`, new TextEncoder().encode("version: 1\n"));
  return m;
}

Deno.test("refuse: a run's own version is erased from the cache, named as discarded, its model refreshed, and the lock's loss rethrown", async () => {
  const m = await runWrote();
  const err = lost();
  const thrown = await refuse(m.ctx, err, emptyJournal(), []).then(
    () => assert.fail("refused"),
    (e: unknown) => e,
  );
  assert.equal(thrown, err, "the lock's loss, rethrown");
  assert.deepEqual(err.discarded, [DIR]);
  assert.equal(m.cache.exists(`${DIR}/raw`), false, "erased from the cache");
  assert.deepEqual(m.refreshed, [["data/t/m"]]);
});

Deno.test("refuse: a version directory there before the run cannot be told from another run's: held, nothing erased", async () => {
  const m = await runWrote(new Set([DIR]));
  const thrown = await refuse(m.ctx, lost(), emptyJournal(), []).then(
    () => assert.fail("refused"),
    (e: unknown) => e,
  );
  assert.ok(thrown instanceof ErasureRefusedError, String(thrown));
  assert.equal(thrown.code, "erasure_refused");
  assert.equal(m.cache.exists(`${DIR}/raw`), true, "its files kept");
});

for (
  const shape of ["made, holding nothing yet", "holding its raw, no metadata.yaml yet", "whole"]
) {
  Deno.test(`refuse: a run's version directory ${shape} is erased; the refresh fetches nothing into it unless it was whole`, async () => {
    const left: (readonly string[] | undefined)[] = [];
    const m = await mockPushContext({
      written: [DIR],
      preexisting: new Set(),
      models: ["t/m"],
      refresh: (_prefixes, leave) => {
        left.push(leave);
        return Promise.resolve();
      },
    });
    if (shape !== "made, holding nothing yet") {
      await m.cache.write(`${DIR}/raw`, new TextEncoder().encode("run's output"));
    }
    if (shape === "whole") {
      await m.cache.write(`${DIR}/metadata.yaml`, new TextEncoder().encode("version: 1\n"));
    }
    const err = lost();
    await refuse(m.ctx, err, emptyJournal(), []).then(() => assert.fail("refused"), () => {});
    assert.deepEqual(err.discarded, [DIR]);
    assert.deepEqual(m.refreshed, [["data/t/m"]]);
    // The run's writer may go on writing into a directory it has not
    // finished: the datastore's copy of that version is not put there.
    assert.deepEqual(left, [shape === "whole" ? [] : [DIR]]);
  });
}
