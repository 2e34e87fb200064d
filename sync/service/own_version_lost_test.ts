/**
 * A data version this cache published whose object the datastore lost (deleted
 * outside Sluice, its entry then removed as naming nothing) is kept in place as
 * any own version deleted on the datastore is, and told as lost: not as
 * another client's deletion.
 */
import assert from "node:assert/strict";
import { type FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";
import { DANGLING_GRACE_MS } from "./dangling_entries.ts";
import { OWN_VERSION_LOST_REASON } from "./pull_removals.ts";
import type { WarningEvent } from "../events.ts";

const RAW = "data/acme/box/m3/state/1/raw";

Deno.test("a data version this cache published that the datastore lost is kept and told as lost; --mine publishes it again", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, RAW, "mine");
  await a.pushChanged();
  await store.delete(RAW); // outside Sluice
  const c = await clone(store, "c");
  await c.pullChanged();
  (c.clock as FakeClock).set(c.clock.now() + DANGLING_GRACE_MS);
  await c.pullChanged(); // its entry removed as naming nothing, recorded as lost
  const warned: WarningEvent[] = [];
  a.events.on("warning", (w) => warned.push(w));
  const r = await a.pullChanged();
  assert.deepEqual(r.lost, [RAW]);
  assert.deepEqual(r.ownKept ?? [], []);
  assert.equal(a.conflicts()[0]?.reason, OWN_VERSION_LOST_REASON);
  const told = warned.find((w) => w.code === "pull_conflict")?.message ?? "";
  assert.match(told, /is gone from the datastore .*a data version this cache published/);
  assert.doesNotMatch(told, /by another client/);
  assert.equal(await read(a, RAW), "mine", "the last copy is kept");
  await a.resolveConflict(RAW, "mine");
  assert.equal(store.peekText(RAW), "mine", "published again");
});
