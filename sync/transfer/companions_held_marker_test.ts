/**
 * A v1 commit that holds a data version's `latest` marker back (a file of
 * the version it found in place was deleted before the commit), while a move
 * to v2 lands between its index write and its companions: the replay into
 * the v2 index holds the marker back too, and the commit must not take that
 * for a deletion of the marker by another writer (chaos seed 216500802).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { sha256Hex } from "../hash.ts";
import { META_KEY, MONOLITH_KEY } from "./bucket_layout.ts";
import type { HeldObject } from "./index_apply.ts";
import { readIndex, updateIndex } from "./remote_index.ts";
import { migrateToShards } from "./migrate_index.ts";

const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const DATA = "data/shell/cmd/m0/log";
const MARKER = `${DATA}/latest`;
const RAW = `${DATA}/2/raw`;
const META = `${DATA}/2/metadata.yaml`;

/** Runs a move to v2 once, right after the first v1 index write lands. */
class MovedAfterIndexWrite extends InMemoryStore {
  armed = false;
  moved = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const r = await super.put(...args);
    if (args[0] === MONOLITH_KEY && this.armed && !this.moved) {
      this.moved = true;
      await migrateToShards(this, { retry });
    }
    return r;
  }
}

async function put(store: InMemoryStore, key: string, text: string, base?: string) {
  const body = new TextEncoder().encode(text);
  const info = await store.put(
    key,
    body,
    base === undefined ? { kind: "create" } : { kind: "update", version: base },
  );
  return { v: info.version, h: await sha256Hex(body), s: body.length };
}

Deno.test("a marker a v1 commit held back is not taken for another writer's deletion when the bucket turned v2 before its companions", async () => {
  const store = new MovedAfterIndexWrite();
  // Version 1 committed, its marker naming it.
  const one = {
    [`${DATA}/1/raw`]: await put(store, `${DATA}/1/raw`, "out"),
    [`${DATA}/1/metadata.yaml`]: await put(store, `${DATA}/1/metadata.yaml`, "meta 1"),
    [MARKER]: await put(store, MARKER, "1"),
  };
  await updateIndex(store, { set: one, remove: [] }, retry);
  // A refused run's uploads of version 2, found in place by this commit;
  // its erasure deletes metadata.yaml before the commit.
  const raw = await put(store, RAW, "out 2");
  const meta = await put(store, META, "meta 2");
  await store.delete(META);
  // This run's marker, written over the committed one.
  const marker = await put(store, MARKER, "2", one[MARKER].v);
  store.armed = true;
  let foreign = new Map<string, HeldObject | null>();
  let unpublished = new Set<string>();
  await updateIndex(
    store,
    {
      set: { [RAW]: raw, [META]: meta, [MARKER]: marker },
      remove: [],
      base: { [RAW]: null, [META]: null, [MARKER]: one[MARKER].v },
      check: [RAW, META],
    },
    retry,
    undefined,
    undefined,
    4,
    Date.now,
    (_base, _complete, f, u) => {
      foreign = new Map(f);
      unpublished = new Set(u);
    },
  );
  assert.ok(store.moved, "the move ran between the index write and the companions");
  const meta2 = JSON.parse(new TextDecoder().decode((await store.get(META_KEY)).body));
  assert.equal(meta2.version, 2);
  // The index names the committed marker still; the store holds this run's upload over it.
  const index = await readIndex(store, retry);
  assert.equal(index?.entries[MARKER]?.v, one[MARKER].v);
  assert.equal((await store.head(MARKER))?.version, marker.v);
  // Held back with its version, as on a v1 or a v2 bucket alone: not published,
  // and no deletion by another writer (whose conflict would have the commit
  // delete this upload, the index still naming the version it replaced).
  assert.ok(unpublished.has(MARKER), `unpublished: ${[...unpublished]}`);
  assert.ok(!foreign.has(MARKER), `foreign: ${JSON.stringify([...foreign])}`);
  assert.ok(unpublished.has(META), `unpublished: ${[...unpublished]}`);
  assert.ok(!foreign.has(META), `foreign: ${JSON.stringify([...foreign])}`);
});
