/**
 * `apply` of an index change over another client's entries (no object
 * version): each checked against what the store holds.
 */
import assert from "node:assert/strict";
import { WRITER_METADATA } from "./writer_id.ts";
import { apply } from "./index_apply.ts";
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

Deno.test("a deletion based on another client's entry (no object version) removes it when it names the deleted copy's bytes and a Sluice writer's upload not committed yet stands there; an old client's write there keeps it", async () => {
  const c = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
  const hash = "b".repeat(64);
  const theirs = { v: `~${hash}`, h: hash, s: 5 };
  for (const writer of [true, false]) {
    const store = new InMemoryStore();
    // The copy this deletion was based on is gone; another write stands at the path now.
    await store.put("a.txt", new TextEncoder().encode("again"), { kind: "create" }, {
      metadata: writer ? { [WRITER_METADATA]: "w2" } : {},
    });
    const entries: Record<string, typeof theirs> = { "a.txt": theirs };
    const foreign = new Map();
    await apply(
      store,
      c,
      entries,
      {
        set: {},
        remove: ["a.txt"],
        base: { "a.txt": "deleted-version" },
        baseHash: { "a.txt": hash },
        checkCreates: true,
      },
      false,
      foreign,
    );
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
  const c = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
  const listed = { v: "~5@2026-01-01T00:00:00.000Z", h: "", s: 5 };
  for (const baseSize of [5, 6, undefined]) {
    const store = new InMemoryStore();
    // The copy this deletion was based on is gone; another writer's upload stands there now.
    await store.put("a.txt", new TextEncoder().encode("again!"), { kind: "create" }, {
      metadata: { [WRITER_METADATA]: "w2" },
    });
    const entries: Record<string, typeof listed> = { "a.txt": listed };
    const foreign = new Map();
    await apply(
      store,
      c,
      entries,
      {
        set: {},
        remove: ["a.txt"],
        base: { "a.txt": "deleted-version" },
        ...(baseSize === undefined ? {} : { baseSize: { "a.txt": baseSize } }),
      },
      false,
      foreign,
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
