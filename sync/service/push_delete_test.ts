/**
 * A local deletion over an uncommitted object: this cache's own is deleted,
 * a peer's is waited for, and only a committed change is a conflict.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import type { SyncService } from "./service.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { UnreachableError } from "../errors.ts";
import { FakeClock, InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
const PATH = "notes/shared.txt";

async function clone(store: InMemoryStore, name: string): Promise<SyncService> {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-delete-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
    conditional: new ConditionalWrites(),
  });
}

async function edit(svc: SyncService, text: string) {
  await writeCacheFile(svc.cacheDir, PATH, text);
  await svc.markDirty({ relPath: PATH });
}

/** An edit whose upload lands and whose index update never does. */
async function uncommittedEdit(store: InMemoryStore, svc: SyncService, text: string) {
  await edit(svc, text);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(svc.pushChanged());
}

async function remove(svc: SyncService) {
  await Deno.remove(`${svc.cacheDir}/${PATH}`);
  await svc.markDirty({ relPath: PATH });
  return await svc.pushChanged();
}

const indexed = async (store: InMemoryStore) =>
  (await readIndex(store, quick.retry))?.entries[PATH];

Deno.test("a deletion over this cache's own uncommitted edit deletes it and its index entry", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await edit(a, "one");
  await a.pushChanged();
  await uncommittedEdit(store, a, "two");
  const r = await remove(a);
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(r.deleted, [PATH]);
  assert.equal(store.peek(PATH), undefined);
  assert.equal(await indexed(store), undefined);
});

Deno.test("a deletion over a peer's uncommitted edit waits for it; once committed, it is a conflict", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await edit(a, "one");
  await a.pushChanged();
  await b.pullChanged();
  await uncommittedEdit(store, b, "theirs");
  const waiting: string[] = [];
  a.events.on("warning", (w) => waiting.push(w.code));
  const r = await remove(a);
  assert.deepEqual(r.conflicts, [], "no committed change yet");
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [[PATH, true]]);
  assert.ok(waiting.includes("push_waiting_uncommitted"), waiting.join());
  assert.equal(store.peekText(PATH), "theirs", "the peer's object is not taken from under it");
  // The peer's push completes: now a committed change stands in the way.
  await b.pushChanged();
  assert.deepEqual((await a.pushChanged()).conflicts, [PATH]);
  assert.equal(store.peekText(PATH), "theirs");
  assert.ok(await indexed(store));
});
