/**
 * An adoption crossed by a peer's deletion (chaos seed 174100154, I9): `d`
 * deletes a file that `b` and `w` synced; `w`, editing it, finds the object
 * gone while the index still names it (a deletion not committed yet) and
 * writes its copy again, and its commit is cut off (its writer taken for
 * gone). `b`, editing it too, meets `w`'s upload with the index still naming
 * the version `b` synced, and adopts it; `d`'s deletion commit lands before
 * the adoption's. The adoption must not name the path again: `d`'s deletion
 * was committed over the version it was based on, and neither `b` nor `w`
 * had seen it (`w`'s own commit would have left its copy out as a
 * conflict).
 */
import assert from "node:assert/strict";
import { type FakeClock, hookedStore, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { assertIndexCurrent, clone, isIndexKey, put, quick } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";

const P = "config/app.yaml";

Deno.test("an adoption whose base a peer's committed deletion took out meanwhile never names the path again", async () => {
  const store = new InMemoryStore();
  const race = {
    armed: false,
    /** `b`'s adoption commit is about to be written. */
    adopting: false,
    /** `d`'s deletion commit landed. */
    deleted: false,
    adoption: undefined as Promise<unknown> | undefined,
  };
  const peers: { b?: SyncService; w?: SyncService } = {};
  // `d`: its deletion's commit waits until `w` wrote its copy again and `b`
  // is about to commit its adoption.
  const dStore = hookedStore(store, {
    before: async (key) => {
      if (!race.armed || !isIndexKey(key) || race.adoption) return;
      store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
      await assert.rejects(peers.w!.pushChanged(), /could not be reached/);
      assert.equal(store.peekText(P), "w's edit", "w wrote its copy again");
      race.adoption = peers.b!.pushChanged({ adoptUncommitted: [P] });
      await waitFor(() => race.adopting, { clock: peers.b!.clock as FakeClock });
    },
    after: (key) => {
      if (race.adoption && isIndexKey(key)) race.deleted = true;
    },
  });
  // `b`: its adoption commit waits for `d`'s deletion commit.
  const bStore = hookedStore(store, {
    before: async (key) => {
      if (!race.adoption || !isIndexKey(key) || race.adopting) return;
      race.adopting = true;
      await waitFor(() => race.deleted, { clock: peers.b!.clock as FakeClock });
    },
  });
  const d = await clone(dStore, "d");
  const b = (peers.b = await clone(bStore, "b"));
  const w = (peers.w = await clone(store, "w"));
  await put(d, P, "d's");
  await d.pushChanged();
  await b.pullChanged();
  await w.pullChanged();
  await put(w, P, "w's edit");
  await put(b, P, "b's edit");
  await Deno.remove(`${d.cacheDir}/${P}`);
  await d.markDirty({ relPath: P });
  race.armed = true;
  await d.pushChanged();
  assert.ok(race.adoption, "the race was run");
  await race.adoption;
  assert.ok(race.deleted && race.adopting);
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[P],
    undefined,
    "d's committed deletion stands: w's copy, based on the version d deleted, is not published over it",
  );
  await assertIndexCurrent(store, { held: true });
  // b's copy is kept, not pushed over the deletion it never saw.
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${P}`), "b's edit");
  // w, back after all, meets the deletion as a conflict, as its own commit would have.
  const back = await w.pushChanged();
  assert.deepEqual(back.conflicts, [P]);
  assert.equal((await readIndex(store, quick.retry))?.entries[P], undefined);
});
