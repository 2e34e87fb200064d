import assert from "node:assert/strict";
import { FakeClock, waitFor } from "../packages/testing/mod.ts";
import type { StateAccess } from "../sync/context.ts";
import { LocalCache } from "../sync/transfer/cache.ts";
import { SyncState } from "../sync/service/state.ts";
import { erasureFixture } from "./erasure_fixture.ts";
import { emptyJournal, readErasureJournal, writeErasureJournal } from "./erasure_journal.ts";
import { updateErasureJournal, withErasureJournal } from "./erasure_journal_lock.ts";

Deno.test("two processes over one cache change the erasure journal one at a time, each on the other's last write", async () => {
  const f = await erasureFixture("sluice-erasure-lock-");
  // A second process over the same cache, on a fake clock; its waits for the lock counted.
  let waits = 0;
  const clock = new FakeClock();
  const other = {
    cache: new LocalCache(f.dir),
    state: await SyncState.open(f.dir),
    clock: {
      sleep: (ms: number) => {
        waits++;
        return clock.sleep(ms);
      },
    },
  };
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let holding = false;
  const first = withErasureJournal(f, async (journal) => {
    holding = true;
    await gate;
    journal.erase.push("data/t/m/d/1");
    await writeErasureJournal(f.cache, journal);
  });
  await waitFor(() => holding);
  let seen: string[] | undefined;
  const second = updateErasureJournal(other, (journal) => {
    seen = [...journal.erase];
    journal.erase.push("data/t/m/d/2");
  });
  await waitFor(() => waits > 0, { message: "the second process waits for the lock" });
  assert.equal(seen, undefined, "it does not read the journal while the first holds it");
  open();
  await first;
  // Its next look, once its wait is over, finds the lock free.
  for (let i = 0; seen === undefined; i++) {
    assert.ok(i < 10_000, "the second process takes the lock once it is free");
    await clock.advance(1_000);
  }
  await second;
  assert.deepEqual(seen, ["data/t/m/d/1"], "it reads what the first wrote");
  assert.deepEqual((await readErasureJournal(f.cache)).erase, ["data/t/m/d/1", "data/t/m/d/2"]);
  other.state.exit();
  f.state.exit();
});

Deno.test("a state without file locks runs the change unlocked, on the journal on disk", async () => {
  const f = await erasureFixture("sluice-erasure-nolock-");
  const unlocked = { cache: f.cache, state: {} as StateAccess };
  const out = await updateErasureJournal(unlocked, (journal) => journal.erase.push("data/t/m/d/3"));
  assert.deepEqual(out, { ...emptyJournal(), erase: ["data/t/m/d/3"] });
  assert.deepEqual(await readErasureJournal(f.cache), out);
});
