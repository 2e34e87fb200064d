/**
 * A peer that synced a cache's own write (its commit landed, its answer
 * lost) pulls inside that cache's take-back of it: the entry is gone while
 * the store still holds the version, which the pull cannot tell from an
 * entry an old client dropped, so it keeps the record to name it again.
 * The take-back's delete lands, and the peer's next push meets the deletion
 * with a copy it never changed: the conflict says so (what deleted it, that
 * the copy here is unchanged), and both resolutions work as it tells.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, read } from "./clone_kit.ts";
import { takeBackAround } from "./clone_cutoff_kit.ts";
import type { SyncService } from "./service.ts";

const PATH = "config/settings.yaml";

/** `b`, whose push met the take-back's deletion of the copy it kept; its warnings. */
async function keptThenDeleted(): Promise<
  { store: InMemoryStore; b: SyncService; warnings: { code: string; message: string }[] }
> {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  const warnings: { code: string; message: string }[] = [];
  b.events.on("warning", (w: { code: string; message: string }) => warnings.push(w));
  await takeBackAround(store, b, PATH, async (landDelete) => {
    await b.pullChanged();
    assert.equal(b.state.synced(PATH)?.republish, true, "kept to name again");
    return await landDelete();
  }, "b pulled inside the take-back");
  assert.equal(store.peek(PATH), undefined);
  warnings.length = 0;
  const r = await b.pushChanged();
  assert.deepEqual(r.conflicts, [PATH]);
  return { store, b, warnings };
}

Deno.test("a copy kept to name again, deleted by its writer's take-back before the push: the conflict says the copy is unchanged and what to run", async () => {
  const { b, warnings } = await keptThenDeleted();
  const told = warnings.find((w) => w.code === "config_changed_remotely");
  assert.ok(told);
  assert.doesNotMatch(told.message, /not based on|would have overwritten/);
  assert.match(told.message, /copy here is unchanged since this cache synced it/);
  assert.match(told.message, /kept it to name again/);
  assert.match(
    told.message,
    /`sluice resolve config\/settings.yaml --theirs` accepts the deletion/,
  );
  const rec = b.state.conflicts.get(PATH);
  assert.ok(rec);
  assert.doesNotMatch(rec.reason ?? "", /not based on/);
  assert.equal(await read(b, PATH), "x\n", "the copy is kept");
});

Deno.test("--theirs on it accepts the deletion, the copy set aside; --mine publishes it again", async () => {
  {
    const { store, b } = await keptThenDeleted();
    const r = await b.resolveConflict(PATH, "theirs");
    assert.equal(await read(b, PATH), undefined);
    assert.equal(await read(b, r.setAside[0]), "x\n", "set aside, never lost");
    assert.equal(store.peek(PATH), undefined);
    assert.equal(b.state.conflicts.get(PATH), undefined);
  }
  {
    const { store, b } = await keptThenDeleted();
    await b.resolveConflict(PATH, "mine");
    assert.equal(store.peekText(PATH), "x\n");
    assert.equal(b.state.conflicts.get(PATH), undefined);
    const c = await clone(store, "c");
    await c.pullChanged();
    assert.equal(await read(c, PATH), "x\n");
  }
});
