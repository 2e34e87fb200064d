/**
 * I7 as `watchLostUpdates` checks it at an index write: an entry naming a
 * version the store no longer holds.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { sha256Hex } from "../../sync/hash.ts";
import {
  MONOLITH_KEY,
  monolithBody,
  shardBody,
  shardKey,
  shardOf,
} from "../../sync/transfer/bucket_layout.ts";
import { readIndex } from "../../sync/transfer/remote_index.ts";
import { PutModes } from "../../sync/ports.ts";
import {
  type HarnessClone,
  harnessDeps,
  watchLostUpdates,
  type WriterView,
} from "./lost_updates.ts";
import { SHARED_FILES } from "./history.ts";
import type { LocalChanges } from "./local_changes.ts";
import type { Violation } from "./invariants.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** Clone `clone` as a writer, counted as synced at `syncedVersion` with hash `synced`. */
const view = (clone: number, syncedVersion?: string, synced?: string): WriterView => ({
  clone,
  synced: () => synced,
  syncedVersion: () => syncedVersion,
  theirs: () => undefined,
  theirsVersion: () => undefined,
  conflicted: () => false,
});

/** `direct` watched for lost updates of `edits`, the writer `who()` names, and what it found. */
function watched(direct: InMemoryStore, edits: unknown[], who: () => WriterView) {
  const violations: Violation[] = [];
  const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
  const store = watchLostUpdates(direct, {
    changes: { edits } as unknown as LocalChanges,
    read: async (key) => (await direct.get(key).catch(() => null))?.body,
    held: async (path) => (await direct.head(path))?.version,
    indexHash: async (path) => (await readIndex(direct, retry))?.entries[path]?.h,
    writer: who,
    moving: () => false,
    violate: (v) => void violations.push(v),
    opId: () => 0,
  });
  return { store, violations };
}

Deno.test("I7: a late commit naming a version whose replacement's commit already landed is a loss, though the replacing writer had seen it", async () => {
  const direct = new InMemoryStore();
  const K = SHARED_FILES[0];
  const shard = shardKey(shardOf(K));
  const hashA = await sha256Hex(enc("a's edit"));
  const hashB = await sha256Hex(enc("b's edit"));
  const edits = [
    { path: K, hash: hashA, clone: 0, op: 1, how: "edit", seq: 1 },
    { path: K, hash: hashB, clone: 1, op: 2, how: "edit", seq: 2 },
  ];
  let who: WriterView = view(0);
  const { store, violations } = watched(direct, edits, () => who);
  const now = new Date(0).toISOString();
  // c0 writes its edit and commits it.
  const v1 = (await store.put(K, enc("a's edit"), PutModes.create)).version;
  let s =
    (await store.put(shard, shardBody({ [K]: { v: v1, h: hashA, s: 8 } }, now), PutModes.create))
      .version;
  // c1 synced it, edits over it, and commits its edit.
  who = view(1, v1, hashA);
  const v2 = (await store.put(K, enc("b's edit"), PutModes.update(v1))).version;
  s =
    (await store.put(shard, shardBody({ [K]: { v: v2, h: hashB, s: 8 } }, now), PutModes.update(s)))
      .version;
  assert.equal(violations.length, 0, JSON.stringify(violations));
  // c0 writes its entry again, naming v1 over c1's committed v2: c1's edit is
  // taken out of the index for a version that is gone.
  who = view(0);
  await store.put(shard, shardBody({ [K]: { v: v1, h: hashA, s: 8 } }, now), PutModes.update(s));
  assert.ok(
    violations.some((v) => v.invariant === "I7"),
    "the index now names a version the store no longer holds, over c1's committed edit",
  );
});

Deno.test("I9: a writer replacing the committed version it wrote itself loses nothing, though its bytes are another clone's edit; another writer that never saw them still does", async () => {
  const direct = new InMemoryStore();
  const K = SHARED_FILES[0];
  const hashA = await sha256Hex(enc("a's edit"));
  const hashB = await sha256Hex(enc("b's edit"));
  const hashC = await sha256Hex(enc("c's edit"));
  const edits = [
    { path: K, hash: hashA, clone: 0, op: 1, how: "edit", seq: 1 },
    { path: K, hash: hashB, clone: 0, op: 2, how: "edit", seq: 2 },
    { path: K, hash: hashC, clone: 1, op: 3, how: "edit", seq: 3 },
  ];
  let who: WriterView = view(0);
  const { store, violations } = watched(direct, edits, () => who);
  const now = new Date(0).toISOString();
  const commit = async (v: string, h: string, base: string | null) =>
    (await store.put(
      MONOLITH_KEY,
      monolithBody({ [K]: { v, h, s: 8 } }, now),
      base === null ? PutModes.create : PutModes.update(base),
    )).version;
  // c0 commits its edit A (c1 syncs it), then its edit B over it.
  const v1 = (await store.put(K, enc("a's edit"), PutModes.create)).version;
  let s = await commit(v1, hashA, null);
  who = view(0, v1, hashA);
  const v2 = (await store.put(K, enc("b's edit"), PutModes.update(v1))).version;
  s = await commit(v2, hashB, s);
  // c1, which had lost its record of A, resolves its conflict with B
  // `--mine`: it publishes its copy, A's bytes, over B, which it saw.
  who = view(1, v2, hashB);
  const v3 = (await store.put(K, enc("a's edit"), PutModes.update(v2))).version;
  s = await commit(v3, hashA, s);
  assert.equal(violations.length, 0, JSON.stringify(violations));
  // Its record of that publication lost in turn (it counts as synced at B
  // again), c1's edit C on B is refused, and meets its own object: c1
  // writes C over the version it wrote itself.
  await assert.rejects(store.put(K, enc("c's edit"), PutModes.update(v2)));
  const v4 = (await store.put(K, enc("c's edit"), PutModes.update(v3))).version;
  assert.equal(violations.length, 0, `c1 replaced its own write: ${JSON.stringify(violations)}`);
  // A writer that never saw c1's publication of A replacing it is still held to I9.
  s = await commit(v4, hashC, s);
  who = view(1, v4, hashC);
  const v5 = (await store.put(K, enc("a's edit"), PutModes.update(v4))).version;
  await commit(v5, hashA, s);
  who = view(2);
  await store.put(K, enc("d's edit"), PutModes.update(v5));
  assert.deepEqual(violations.map((v) => v.invariant), ["I9"], JSON.stringify(violations));
});

Deno.test("I9 by the harness: an aimed second process's command, run in its clone's own process's place, is seen by its own records, not the waiting process's", () => {
  const direct = new InMemoryStore();
  const K = SHARED_FILES[0];
  /** A clone's service as the harness reads it: what it synced at K and its conflict there. */
  const svc = (synced?: string, theirs?: string) =>
    ({
      state: {
        synced: (p: string) => (p === K && synced ? { hash: synced, version: synced } : undefined),
      },
      conflicts: () => theirs ? [{ path: K, theirs: { hash: theirs, version: theirs } }] : [],
    }) as unknown as HarnessClone["svc"];
  const own = svc("old");
  const second = svc(undefined, "peer's");
  const acting: { svc?: HarnessClone["svc"] } = {};
  const deps = harnessDeps({
    changes: { edits: [] } as unknown as LocalChanges,
    read: () => Promise.resolve(undefined),
    direct,
    owner: () => "c1.0",
    label: () => "c1 sync",
    clones: [{ index: 0, owner: "c0.0", svc: svc() }, { index: 1, owner: "c1.0", svc: own }],
    acting: (owner) => owner === "c1.0" ? acting.svc : undefined,
    violate: () => {},
    opId: () => 0,
  });
  // The own process's view while none acts in its place.
  let who = deps.writer()!;
  assert.equal(who.clone, 1);
  assert.equal(who.synced(K), "old");
  assert.equal(who.theirs(K), undefined);
  // The second process's, while its command runs there.
  acting.svc = second;
  who = deps.writer()!;
  assert.equal(who.clone, 1);
  assert.equal(who.synced(K), undefined);
  assert.equal(who.theirs(K), "peer's");
  assert.equal(who.theirsVersion(K), "peer's");
  assert.ok(who.conflicted(K));
});
