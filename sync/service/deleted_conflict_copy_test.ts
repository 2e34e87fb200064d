/**
 * A copy an open conflict with the datastore's deletion keeps (a file the
 * datastore lost, its last copy here) is a local change: never written over
 * by a peer's new file at its path.
 */
import assert from "node:assert/strict";
import { type FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";
import { DANGLING_GRACE_MS } from "./dangling_entries.ts";
import { LOST_REASON } from "./vanished_record.ts";

const F = "notes/f.txt";

Deno.test("a lost file's last copy, kept as a conflict, is not written over by a peer's new file at its path", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, F, "one");
  await a.pushChanged();
  await store.delete(F); // outside Sluice
  const c = await clone(store, "c");
  await c.pullChanged();
  (c.clock as FakeClock).set(c.clock.now() + DANGLING_GRACE_MS);
  await c.pullChanged(); // removes the entry, recorded as lost
  await a.pullChanged();
  assert.equal(a.conflicts()[0]?.reason, LOST_REASON);
  assert.equal(await read(a, F), "one", "the last copy is kept");
  // A peer, which never had F, writes a new file at that path.
  await put(c, F, "c's new file");
  await c.pushChanged();
  assert.equal(store.peekText(F), "c's new file");
  await a.pullChanged();
  // "one" must still be somewhere: in place, or set aside with a conflict naming it.
  const here = await read(a, F);
  const named = a.conflicts().find((x) => x.path === F);
  let aside: string | undefined;
  if (named?.mine && named.mine.location !== F) {
    aside = await Deno.readTextFile(`${a.cacheDir}/${named.mine.location}`).catch(() => undefined);
  }
  assert.ok(
    here === "one" || aside === "one",
    `the last copy of "one" was written over: a has ${here}, conflict ${JSON.stringify(named)}`,
  );
});
