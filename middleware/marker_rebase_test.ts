import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { clone, put, RacingStore, read } from "../sync/service/clone_kit.ts";
import { MARKER_RACE_REASON } from "./marker_rebase.ts";
import type { SyncService } from "../sync/service/service.ts";

const D = "data/shell/cmd/m1/out";
const MARKER = `${D}/latest`;

/** `svc` writes versions `ns` (a `raw` each) and its marker naming `marker`. */
async function wrote(svc: SyncService, ns: readonly string[], marker: string, by: string) {
  for (const n of ns) await put(svc, `${D}/${n}/raw`, `${by}'s ${n}`);
  await put(svc, MARKER, marker);
}

/** `a` and `b` both synced version 1 and a marker naming it. */
async function bothAtOne(store: InMemoryStore) {
  const a = await clone(store, "a");
  await put(a, `${D}/1/raw`, "a's 1");
  await put(a, MARKER, "1");
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, MARKER), "1");
  return { a, b };
}

Deno.test("a latest marker naming a newer version than the datastore's marker, which another writer changed, is written over it: no conflict, both versions published", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  // a publishes version 2 and its marker; b, not knowing it, versions 3 and 4.
  await wrote(a, ["2"], "2", "a");
  await a.pushChanged();
  await wrote(b, ["3", "4"], "4", "b");
  const r = await b.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(store.peekText(MARKER), "4");
  for (const [n, by] of [["2", "a's 2"], ["3", "b's 3"], ["4", "b's 4"]]) {
    assert.equal(store.peekText(`${D}/${n}/raw`), by);
  }
  // The index names the marker b wrote; a takes it with its next pull.
  await a.pullChanged();
  assert.equal(await read(a, MARKER), "4");
  assert.deepEqual(a.conflicts(), []);
  // A later run of b's publishes its marker as any other (nothing held back behind a conflict).
  await put(b, `${D}/5/raw`, "b's 5");
  await put(b, MARKER, "5");
  assert.deepEqual((await b.pushChanged()).conflicts, []);
  assert.equal(store.peekText(MARKER), "5");
});

Deno.test("a latest marker naming the same or an older version than the datastore's changed marker is still a conflict, both copies kept", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  await put(a, `${D}/2/raw`, "a's 2");
  await put(a, `${D}/3/raw`, "a's 3");
  await put(a, MARKER, "3");
  await a.pushChanged();
  await put(b, `${D}/2b/raw`, "b's");
  await put(b, MARKER, "2");
  const r = await b.pushChanged();
  assert.deepEqual(r.conflicts, [MARKER]);
  assert.equal(store.peekText(MARKER), "3");
  assert.equal(await read(b, MARKER), "2");
});

Deno.test("a marker that names no version number is never written over another writer's: held, dirty", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  await wrote(a, ["2"], "2", "a");
  await a.pushChanged();
  await put(b, MARKER, "by hand: 7");
  const r = await b.pushChanged();
  assert.ok(r.skipped.some((s) => s.path === MARKER && s.keepDirty), JSON.stringify(r.skipped));
  assert.equal(store.peekText(MARKER), "2");
});

/**
 * a publishes version 2 and its marker; b, synced at 1, writes version 4
 * and its marker and pushes: its first compare-and-swap (on version 1's
 * marker) is refused, and before its second (on a's), a publishes version 3
 * and its marker. What b's push returned.
 */
async function lostToThree() {
  const store = new RacingStore();
  const { a, b } = await bothAtOne(store);
  await wrote(a, ["2"], "2", "a");
  await a.pushChanged();
  await wrote(b, ["4"], "4", "b");
  let updates = 0;
  store.beforePut = {
    match: (key, mode) => key === MARKER && mode.kind === "update" && ++updates === 2,
    run: async () => {
      await wrote(a, ["3"], "3", "a");
      await a.pushChanged();
    },
  };
  const r = await b.pushChanged();
  return { store, b, r };
}

Deno.test("a marker written over the datastore's that another writer replaces meanwhile stays dirty, no conflict; the next push writes it again", async () => {
  const { store, b, r } = await lostToThree();
  assert.deepEqual(r.conflicts, []);
  assert.equal(r.skipped.find((s) => s.path === MARKER)?.reason, MARKER_RACE_REASON);
  assert.equal(store.peekText(MARKER), "3");
  assert.ok(b.state.dirtyPaths().includes(MARKER));
  const again = await b.pushChanged();
  assert.deepEqual(again.conflicts, []);
  assert.equal(store.peekText(MARKER), "4");
});

Deno.test("a marker naming a higher version that a peer deleted (and moved its marker back from) is not written over the peer's marker: the marker would name files the index no longer lists", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const n of ["1", "2", "3", "4"]) await put(a, `${D}/${n}/raw`, `a's ${n}`);
  await put(a, MARKER, "4");
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, `${D}/3/raw`), "a's 3");
  // a finds versions 3 and 4 bad: deletes them, and sets its marker back to 2.
  for (const n of ["3", "4"]) {
    await Deno.remove(`${a.cacheDir}/${D}/${n}`, { recursive: true });
    await a.markDirty({ relPath: `${D}/${n}/raw` });
  }
  await put(a, MARKER, "2");
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  assert.equal(store.peekText(`${D}/3/raw`), undefined);
  assert.equal(store.peekText(MARKER), "2");
  // b, which has not pulled since, sets its marker back from 4 to 3 by hand.
  await put(b, MARKER, "3");
  const r = await b.pushChanged();
  // a's change of the marker is a peer's change b's copy is not based on.
  assert.equal(store.peekText(MARKER), "2", "the datastore's marker names a deleted version");
  assert.deepEqual(r.conflicts, [MARKER]);
});

Deno.test("a peer's marker moved back (a rollback) is never written over by a marker that moved forward here: a conflict", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const n of ["1", "2", "3", "4", "5"]) await put(a, `${D}/${n}/raw`, `a's ${n}`);
  await put(a, MARKER, "3");
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  await put(a, MARKER, "2"); // a moves it back, on purpose
  await a.pushChanged();
  await put(b, MARKER, "5"); // b moves it forward
  assert.deepEqual((await b.pushChanged()).conflicts, [MARKER]);
  assert.equal(store.peekText(MARKER), "2");
});

Deno.test("a pull that meets a peer's marker moved forward less far than this cache's is no conflict: the marker stays here, based on the peer's, and the next push writes it over", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  await wrote(a, ["2"], "2", "a");
  await a.pushChanged();
  // b's run wrote versions 3 and 4 and its marker; its process died before its push.
  await wrote(b, ["3", "4"], "4", "b");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, []);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, MARKER), "4");
  assert.equal(await read(b, `${D}/2/raw`), "a's 2");
  const pushed = await b.pushChanged();
  assert.deepEqual(pushed.conflicts, []);
  assert.equal(store.peekText(MARKER), "4");
  await a.pullChanged();
  assert.equal(await read(a, MARKER), "4");
});

Deno.test("a pull that meets a peer's marker moved back is a conflict, both copies kept", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const n of ["1", "2", "3"]) await put(a, `${D}/${n}/raw`, `a's ${n}`);
  await put(a, MARKER, "3");
  await a.pushChanged();
  const b = await clone(store, "b");
  await b.pullChanged();
  await put(a, MARKER, "2"); // moved back on purpose
  await a.pushChanged();
  await put(b, `${D}/4/raw`, "b's 4");
  await put(b, MARKER, "4");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, [MARKER]);
  assert.equal(await read(b, MARKER), "4");
  assert.equal(store.peekText(MARKER), "2");
});

Deno.test("a marker this cache never synced is a conflict with the datastore's, however far it moved: whether the peer's moved back is not known", async () => {
  const store = new InMemoryStore();
  const { a } = await bothAtOne(store);
  await wrote(a, ["2"], "2", "a");
  await a.pushChanged();
  await put(a, MARKER, "1\n"); // a moves it back
  await a.pushChanged();
  const c = await clone(store, "c"); // never synced the marker
  await put(c, `${D}/3/raw`, "c's 3");
  await put(c, MARKER, "3");
  assert.deepEqual((await c.pushChanged()).conflicts, [MARKER]);
  assert.equal(store.peekText(MARKER), "1\n");
});

Deno.test("a pull that meets a peer's marker naming the same version as this cache's (other bytes) is no conflict: the datastore's is taken", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  await wrote(a, ["2"], "2", "a");
  await a.pushChanged();
  await put(b, MARKER, "2\n");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, []);
  assert.equal(await read(b, MARKER), "2");
  const pushed = await b.pushChanged();
  assert.deepEqual(pushed.conflicts, []);
  assert.equal(store.peekText(MARKER), "2");
});

/** a deletes the whole data name (its versions and marker) and pushes; b has not pulled. */
async function deletedByA(store: InMemoryStore) {
  const { a, b } = await bothAtOne(store);
  await Deno.remove(`${a.cacheDir}/${D}`, { recursive: true });
  await a.markDirty({ relPath: D });
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), undefined);
  assert.equal(store.peekText(`${D}/1/raw`), undefined);
  return { a, b };
}

Deno.test("a latest marker another writer deleted, with the data name, is created again by a push that publishes the version it names: readers find that version", async () => {
  const store = new InMemoryStore();
  const { a, b } = await deletedByA(store);
  // b's run after the deletion: version 2 and its marker.
  await wrote(b, ["2"], "2", "b");
  const r = await b.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(store.peekText(`${D}/2/raw`), "b's 2");
  assert.equal(store.peekText(MARKER), "2", "the marker names the version just published");
  assert.equal(store.peekText(`${D}/1/raw`), undefined, "the deletion of version 1 stands");
  await a.pullChanged();
  assert.equal(await read(a, MARKER), "2");
  // b's next run publishes its marker as any other.
  await wrote(b, ["3"], "3", "b");
  assert.deepEqual((await b.pushChanged()).conflicts, []);
  assert.equal(store.peekText(MARKER), "3");
});

Deno.test("a latest marker another writer deleted stays a conflict where this push publishes no version of it (moved here alone, or back)", async () => {
  const store = new InMemoryStore();
  const { b } = await deletedByA(store);
  // Version 2 pushed before, the marker moved alone now: not this push's version.
  await put(b, `${D}/2/raw`, "b's 2");
  await b.pushChanged({ only: [`${D}/2/raw`] });
  await put(b, MARKER, "2");
  const r = await b.pushChanged({ only: [MARKER] });
  assert.deepEqual(r.conflicts, [MARKER]);
  assert.equal(
    store.peekText(MARKER),
    undefined,
    "the deletion is not undone without a new version",
  );
});

Deno.test("in a prepared push too (its version uploaded by the preparation, the marker at the commit): a marker deleted meanwhile is created again, one moved forward by a peer meanwhile is written over", async () => {
  const deleted = new InMemoryStore();
  {
    const { a, b } = await bothAtOne(deleted);
    await wrote(b, ["2"], "2", "b");
    const prepared = await b.preparePush();
    await Deno.remove(`${a.cacheDir}/${D}`, { recursive: true });
    await a.markDirty({ relPath: D });
    await a.pushChanged();
    const r = await b.commitPush(prepared);
    assert.deepEqual(r.conflicts, []);
    assert.equal(deleted.peekText(MARKER), "2");
    assert.equal(deleted.peekText(`${D}/2/raw`), "b's 2");
  }
  const moved = new InMemoryStore();
  {
    const { a, b } = await bothAtOne(moved);
    await wrote(b, ["3"], "3", "b");
    const prepared = await b.preparePush();
    await wrote(a, ["2"], "2", "a");
    await a.pushChanged();
    const r = await b.commitPush(prepared);
    assert.deepEqual(r.conflicts, []);
    assert.equal(moved.peekText(MARKER), "3");
  }
});

Deno.test("a latest marker another writer deleted is not created again naming a version whose files that writer deleted too (only one file of it in this push)", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  // b's run pushes part of version 2 first (its raw), the marker not yet moved.
  await put(b, `${D}/2/raw`, "b's 2");
  await b.pushChanged({ only: [`${D}/2/raw`] });
  assert.equal(store.peekText(`${D}/2/raw`), "b's 2");
  // a pulls it, then deletes the whole data name on purpose (version 2's raw included).
  await a.pullChanged();
  await Deno.remove(`${a.cacheDir}/${D}`, { recursive: true });
  await a.markDirty({ relPath: D });
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), undefined);
  assert.equal(store.peekText(`${D}/2/raw`), undefined);
  // b, not having pulled, finishes version 2 (another file) and moves its marker to it.
  await put(b, `${D}/2/metadata.yaml`, "b's 2 meta");
  await put(b, MARKER, "2");
  await b.pushChanged();
  // The marker would point readers at a version whose raw the datastore no longer holds.
  assert.ok(
    store.peekText(MARKER) === undefined || store.peekText(`${D}/2/raw`) !== undefined,
    `marker ${store.peekText(MARKER)} names ${D}/2, whose raw is gone`,
  );
});

Deno.test("a latest marker another writer deleted on purpose, created again by this push, is said: a warning or a conflict, not only a gate note", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  // a's user deletes the whole data name on purpose while b's run is in flight.
  await Deno.remove(`${a.cacheDir}/${D}`, { recursive: true });
  await a.markDirty({ relPath: D });
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), undefined);
  await wrote(b, ["2"], "2", "b");
  const warnings: string[] = [];
  b.events.on("warning", (w) => warnings.push(`${w.code}: ${w.message}`));
  const r = await b.pushChanged();
  assert.equal(store.peekText(MARKER), "2", "the data name is readable again");
  // Before f0f3285 this was a conflict b's user saw; now nothing tells either user.
  assert.ok(
    r.conflicts.includes(MARKER) || warnings.some((w) => w.includes(MARKER)),
    `the deletion of ${D} by another writer was undone silently: conflicts ${
      JSON.stringify(r.conflicts)
    }, warnings ${JSON.stringify(warnings)}`,
  );
});

/**
 * a publishes versions 2 and 3 and moves the marker to 3 while b, synced at
 * 1, does not pull the marker; c takes 3 and rolls the marker back to 2.
 */
async function rolledBackPastB(store: InMemoryStore, bPulls: readonly string[]) {
  const { a, b } = await bothAtOne(store);
  await wrote(a, ["2", "3"], "3", "a");
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  if (bPulls.length) await b.pullChanged({ prefixes: bPulls });
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, MARKER), "3");
  await put(c, MARKER, "2"); // c's user rolls the marker back, on purpose
  assert.deepEqual((await c.pushChanged()).conflicts, []);
  assert.equal(store.peekText(MARKER), "2");
  assert.equal(await read(b, MARKER), "1");
  return { a, b, c };
}

Deno.test("a peer's rollback of a marker this cache synced lower still (moved forward past it, then back) is not written over by a marker moved further here: a conflict", async () => {
  // b's own run writes version 4 and its marker.
  const own = new InMemoryStore();
  {
    const { b } = await rolledBackPastB(own, []);
    await wrote(b, ["4"], "4", "b");
    const r = await b.pushChanged();
    assert.equal(own.peekText(`${D}/4/raw`), "b's 4");
    assert.equal(own.peekText(MARKER), "2", "c's rollback was written over unseen");
    assert.deepEqual(r.conflicts, [MARKER]);
  }
  // b took version 3 alone (not the marker) and moves its marker to it: the
  // very version c's user rolled back from.
  const pulled = new InMemoryStore();
  {
    const { b } = await rolledBackPastB(pulled, [`${D}/3`]);
    assert.equal(await read(b, `${D}/3/raw`), "a's 3");
    await put(b, MARKER, "3");
    const r = await b.pushChanged();
    assert.equal(pulled.peekText(MARKER), "2", "c's rollback was written over unseen");
    assert.deepEqual(r.conflicts, [MARKER]);
  }
  // b's own run pulls first (as a run under its model lock does): the pull
  // meets c's rollback, a conflict too, not a marker kept "based on" it.
  const run = new InMemoryStore();
  {
    const { b } = await rolledBackPastB(run, []);
    await put(b, `${D}/4/raw`, "b's 4");
    await put(b, MARKER, "4");
    assert.deepEqual((await b.pullChanged()).conflicts, [MARKER]);
    await b.pushChanged();
    assert.equal(run.peekText(MARKER), "2", "c's rollback was written over unseen");
  }
});

Deno.test("a marker whose write lost the race to a peer's moved-forward marker, met by a pull before the next push, is kept based on it: its own published version above the peer's marker is no rollback", async () => {
  const { store, b, r } = await lostToThree();
  assert.equal(r.skipped.find((s) => s.path === MARKER)?.reason, MARKER_RACE_REASON);
  assert.equal(store.peekText(`${D}/4/raw`), "b's 4");
  // b's run pulls before its next push (as a run under its model lock does):
  // version 4, listed above a's marker, is b's own, not one a moved back from.
  assert.deepEqual((await b.pullChanged()).conflicts, []);
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual((await b.pushChanged()).conflicts, []);
  assert.equal(store.peekText(MARKER), "4");
});

/**
 * c rolls the marker back from 3 to 2 and deletes version 3 with it; b,
 * synced at 1 and not having pulled, publishes version 4 and its marker.
 * The index then reads as a marker moved forward from 1 to 2 (nothing is
 * listed above it), and b's marker is written over c's, with no conflict.
 * That is no loss: version 3 stays deleted, no reader is pointed at it, and
 * the outcome is the one b's run would have had pulling c's rollback first
 * (its marker then based on 2, moved to 4 as a plain update).
 */
Deno.test("a peer's rollback that deleted the versions it moved back from is met as a move forward: a newer version's marker is written over it, the deleted versions staying deleted", async () => {
  const store = new InMemoryStore();
  const { a, b } = await bothAtOne(store);
  await wrote(a, ["2", "3"], "3", "a");
  await a.pushChanged();
  const c = await clone(store, "c");
  await c.pullChanged();
  await Deno.remove(`${c.cacheDir}/${D}/3`, { recursive: true });
  await c.markDirty({ relPath: `${D}/3/raw` });
  await put(c, MARKER, "2");
  assert.deepEqual((await c.pushChanged()).conflicts, []);
  await wrote(b, ["4"], "4", "b");
  assert.deepEqual((await b.pushChanged()).conflicts, []);
  assert.equal(store.peekText(MARKER), "4");
  assert.equal(store.peekText(`${D}/3/raw`), undefined, "c's deletion stands");
  await c.pullChanged();
  assert.equal(await read(c, MARKER), "4");
  assert.equal(await read(c, `${D}/3/raw`), undefined);
});
