/**
 * `apply` of an index change over another client's entries (no object
 * version): each checked against what the store holds.
 */
import assert from "node:assert/strict";
import { WRITER_METADATA } from "./writer_id.ts";
import { apply } from "./index_apply.ts";
import type { IndexEntry } from "./bucket_layout.ts";
import type { IndexChange } from "./remote_index.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";

Deno.test("a verified set of another client's entry (no object version) applies while an object of its size is there and no entry names the path", async () => {
  const store = new InMemoryStore();
  const held = await store.put("a.txt", new TextEncoder().encode("first"), { kind: "create" });
  const c = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
  const theirs = { v: "~5@x", h: "b".repeat(64), s: 5 };
  const verified = (set: Record<string, typeof theirs>) => ({ set, remove: [], verify: true });
  // Named by no entry: applied.
  const none: Record<string, typeof theirs> = {};
  await apply(store, c, none, verified({ "a.txt": theirs }));
  assert.deepEqual(none["a.txt"], theirs);
  // Another size than the object there: left out.
  const other: Record<string, typeof theirs> = {};
  await apply(store, c, other, verified({ "a.txt": { ...theirs, s: 6 } }));
  assert.equal(other["a.txt"], undefined);
  // A Sluice commit named a version there since: kept.
  const ours = { v: held.version, h: "c".repeat(64), s: 5 };
  const named: Record<string, typeof theirs> = { "a.txt": ours };
  await apply(store, c, named, verified({ "a.txt": theirs }));
  assert.deepEqual(named["a.txt"], ours);
  // Another client's entry there (written since, perhaps): kept.
  const newer = { v: "~5@y", h: "d".repeat(64), s: 5 };
  const theirsNow: Record<string, typeof theirs> = { "a.txt": newer };
  await apply(store, c, theirsNow, verified({ "a.txt": theirs }));
  assert.deepEqual(theirsNow["a.txt"], newer);
  // Nothing there: left out.
  const gone: Record<string, typeof theirs> = {};
  await apply(store, c, gone, verified({ "b.txt": theirs }));
  assert.equal(gone["b.txt"], undefined);
});

/**
 * A deletion of `a.txt` based on another client's entry `entry` (its copy
 * gone), applied where another write stands at the path now (a Sluice
 * writer's upload not committed yet, with `writer`), with `change`'s base
 * facts: the entries and the paths taken for another writer's after it.
 */
async function removeOverWrite(
  entry: IndexEntry,
  writer: boolean,
  change: Pick<IndexChange, "baseHash" | "baseSize" | "checkCreates">,
) {
  const store = new InMemoryStore();
  await store.put("a.txt", new TextEncoder().encode("again!"), { kind: "create" }, {
    metadata: writer ? { [WRITER_METADATA]: "w2" } : {},
  });
  const entries: Record<string, IndexEntry> = { "a.txt": entry };
  const foreign = new Map();
  const c = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
  const remove = { set: {}, remove: ["a.txt"], base: { "a.txt": "deleted-version" } };
  await apply(store, c, entries, { ...remove, ...change }, false, foreign);
  return { entries, foreign };
}

Deno.test("a deletion based on another client's entry (no object version) removes it when it names the deleted copy's bytes and a Sluice writer's upload not committed yet stands there; an old client's write there keeps it", async () => {
  const hash = "b".repeat(64);
  const theirs = { v: `~${hash}`, h: hash, s: 5 };
  for (const writer of [true, false]) {
    const { entries, foreign } = await removeOverWrite(theirs, writer, {
      baseHash: { "a.txt": hash },
      checkCreates: true,
    });
    if (writer) {
      assert.equal(entries["a.txt"], undefined, "the entry named the deleted copy: removed");
      assert.equal(foreign.size, 0);
    } else {
      assert.deepEqual(entries["a.txt"], theirs, "an old client's write may be that entry's: kept");
      assert.ok(foreign.has("a.txt"));
    }
  }
});

Deno.test("a deletion based on another client's entry that records no hash (a listing's) removes it by the deleted copy's size where a Sluice writer's upload not committed yet stands there", async () => {
  const listed = { v: "~5@2026-01-01T00:00:00.000Z", h: "", s: 5 };
  for (const baseSize of [5, 6, undefined]) {
    const { entries, foreign } = await removeOverWrite(
      listed,
      true,
      baseSize === undefined ? {} : { baseSize: { "a.txt": baseSize } },
    );
    if (baseSize === 5) {
      assert.equal(entries["a.txt"], undefined, "the entry named the deleted copy: removed");
      assert.equal(foreign.size, 0);
    } else {
      assert.deepEqual(
        entries["a.txt"],
        listed,
        `another copy's entry (base size ${baseSize}): kept`,
      );
      assert.ok(foreign.has("a.txt"));
    }
  }
});

/**
 * A deletion of `a.txt` based on another client's entry of `base` (its
 * bytes' hash and size), applied with nothing at the path now and the
 * delete found gone (`foundGone`: the store deletes by a check, then a
 * delete), over `entry`: the entries and the paths taken for another
 * writer's.
 */
async function removeFoundGone(
  entry: IndexEntry,
  base: Pick<IndexChange, "baseHash" | "baseSize">,
) {
  const store = new InMemoryStore();
  const entries: Record<string, IndexEntry> = { "a.txt": entry };
  const foreign = new Map();
  const c = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
  await apply(
    store,
    c,
    entries,
    {
      set: {},
      remove: ["a.txt"],
      base: { "a.txt": "deleted-version" },
      foundGone: ["a.txt"],
      checkCreates: true,
      ...base,
    },
    false,
    foreign,
  );
  return { entries, foreign };
}

Deno.test("a deletion found gone over another client's entry naming other bytes than the copy it deleted (an old client's edit its checked delete removed) keeps that entry, told as another writer's", async () => {
  const synced = "b".repeat(64);
  const theirs = "d".repeat(64);
  // An old client's edit, committed since this cache synced the path.
  const edit = { v: `~${theirs}`, h: theirs, s: 5 };
  const kept = await removeFoundGone(edit, { baseHash: { "a.txt": synced } });
  assert.deepEqual(kept.entries["a.txt"], edit, "an edit never seen: kept, never taken out");
  assert.equal(kept.foreign.get("a.txt"), null, "told as another writer's, nothing there");
  // The entry this deletion was based on (the bytes it synced): removed.
  const same = { v: `~${synced}`, h: synced, s: 5 };
  const removed = await removeFoundGone(same, { baseHash: { "a.txt": synced } });
  assert.equal(removed.entries["a.txt"], undefined, "the entry of the bytes deleted: removed");
  assert.equal(removed.foreign.size, 0);
  // An entry recording no hash: told by its size.
  const listed = { v: "~6@2026-01-01T00:00:00.000Z", h: "", s: 6 };
  const bySize = await removeFoundGone(listed, {
    baseHash: { "a.txt": synced },
    baseSize: { "a.txt": 5 },
  });
  assert.deepEqual(bySize.entries["a.txt"], listed, "another size than the copy deleted: kept");
  const sameSize = await removeFoundGone(listed, { baseSize: { "a.txt": 6 } });
  assert.equal(sameSize.entries["a.txt"], undefined, "the size of the copy deleted: removed");
});

Deno.test("a deletion whose entry is gone (taken out before its own delete) applies with no conflict where another Sluice writer's upload not committed yet stands there since (a new create at the freed path); an old client's write there is still another writer's", async () => {
  for (const writer of [true, false]) {
    const store = new InMemoryStore();
    // The deleted copy's version is gone; a peer's create at the freed path
    // (its run's next version number, say) stands there now, not committed.
    await store.put("a.txt", new TextEncoder().encode("again!"), { kind: "create" }, {
      metadata: writer ? { [WRITER_METADATA]: "w2" } : {},
    });
    const entries: Record<string, IndexEntry> = {};
    const foreign = new Map();
    const c = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
    const ok = await apply(
      store,
      c,
      entries,
      {
        set: {},
        remove: ["a.txt"],
        base: { "a.txt": "deleted-version" },
        checkCreates: true,
      },
      false,
      foreign,
    );
    if (writer) {
      assert.equal(foreign.size, 0, "the peer's create is no write over this deletion");
      assert.equal(ok, true);
    } else {
      assert.ok(foreign.has("a.txt"), "an old client's write may have replaced the deleted copy");
    }
  }
});
