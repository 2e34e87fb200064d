/**
 * Setups of the tests of index entries an old client's write-back drops:
 * clones of one in-memory store, and the commits such a write-back loses.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { InMemoryStore, peerPull, peerPush, peerReadIndex } from "../../packages/testing/mod.ts";
import type { SyncService } from "./service.ts";
import type { WarningEvent } from "../events.ts";
import { updateManagedLockfile } from "../locks/lockfile_txn.ts";

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** What clone `a` pushes in {@link dropped}. */
export const FILES: Record<string, string> = {
  "config/app.yaml": "a: 1\n",
  "data/aws/ec2/m1/state/1/raw": "raw\n",
  "outputs/aws/run/report.txt": "report\n",
};

/** The file the old client pushes while it drops the others' entries. */
export const THEIRS = "files/theirs.txt";

/** A service named `name` over `store`, in a new cache directory (or `dir`, to reopen one), with no retries. */
export async function clone(
  store: InMemoryStore,
  name: string,
  dir?: string,
): Promise<SyncService> {
  return await createSluice({
    cacheDir: dir ?? await Deno.makeTempDir({ prefix: `sluice-dropped-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
  });
}

/** Writes `text` at `path` in `svc`'s cache, marks it dirty and pushes. */
export async function commit(svc: SyncService, path: string, text: string) {
  await svc.cache.write(path, enc(text));
  await svc.markDirty({ relPath: path });
  return await svc.pushChanged();
}

/** Clone `a` pushes FILES inside an old client's read-modify-write, which drops them from the index. */
export async function dropped(): Promise<{ store: InMemoryStore; a: SyncService }> {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const [p, t] of Object.entries(FILES)) await a.cache.write(p, enc(t));
  await a.markDirty({ relPaths: Object.keys(FILES) });
  await peerPush(store, { [THEIRS]: "theirs\n" }, {
    afterRead: async () => {
      assert.deepEqual((await a.pushChanged()).uploaded.sort(), Object.keys(FILES).sort());
    },
  });
  assert.deepEqual(Object.keys(await peerReadIndex(store)), [THEIRS]);
  return { store, a };
}

/**
 * `config/app.yaml`, pushed by `a`, then dropped from the index or rolled
 * back to an older version by an old client: `a`'s own (`rolled back`), or
 * one an old client pushed and `a` pulled (`rolled back to an old client's`,
 * an entry with no object version).
 */
export async function lost(
  how: "dropped" | "rolled back" | "rolled back to an old client's",
): Promise<{ store: InMemoryStore; a: SyncService; path: string }> {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "config/app.yaml";
  if (how === "rolled back") {
    await a.cache.write(path, enc("one\n"));
    await a.markDirty({ relPath: path });
    await a.pushChanged();
  } else if (how === "rolled back to an old client's") {
    await peerPush(store, { [path]: "one\n" });
    assert.deepEqual((await a.pullChanged()).fetched, [path]);
  }
  await peerPush(store, { [THEIRS]: "theirs\n" }, {
    afterRead: async () => {
      await a.cache.write(path, enc("two\n"));
      await a.markDirty({ relPath: path });
      assert.deepEqual((await a.pushChanged()).uploaded, [path]);
    },
  });
  return { store, a, path };
}

/**
 * Clone `a` commits `notes/gone.txt`, whose object another tool then
 * deletes; an old client's pull meets it missing and writes back the index
 * it read, `meanwhile` running between that read and that write. Returns
 * what that pull dropped.
 */
export async function oldPullMeetsGone(
  store: InMemoryStore,
  a: SyncService,
  meanwhile: () => Promise<void>,
): Promise<string[]> {
  await commit(a, "notes/gone.txt", "soon gone\n");
  await store.delete("notes/gone.txt"); // another tool's: an old client's pull meets it missing
  return await peerPull(store, { afterRead: meanwhile });
}

/**
 * Clone `a` whose lockfile transaction an old client's pull dropped from the
 * index: that pull met another object missing and wrote back the index it
 * had read before the transaction's commit.
 */
export async function lockfileEntryDropped(store: InMemoryStore): Promise<SyncService> {
  const a = await clone(store, "a");
  await oldPullMeetsGone(store, a, async () => {
    await updateManagedLockfile(a, { set: { "@acme/x": { version: "1.0.0" } } });
  });
  return a;
}

/**
 * `path`, deleted here by `a` and pushed, is gone everywhere: from the store,
 * its index and `a`'s records, and a new clone fetches nothing there.
 */
export async function assertGoneEverywhere(
  store: InMemoryStore,
  a: SyncService,
  path: string,
): Promise<void> {
  assert.equal(store.peek(path), undefined, "nothing left on the store that no index names");
  assert.equal((await peerReadIndex(store))[path], undefined);
  assert.deepEqual(a.state.dirtyPaths(), []);
  assert.equal(a.state.synced(path), undefined);
  const b = await clone(store, "b");
  const fresh = await b.pullChanged();
  assert.deepEqual(fresh.uncommitted, []);
  await assert.rejects(Deno.lstat(`${b.cacheDir}/${path}`), Deno.errors.NotFound);
}

/**
 * `path`, synced by `a`, deleted here by hand and not marked, then a pull:
 * it removes nothing, keeps the record at the synced version, marks nothing
 * and warns `index_entry_dropped` once. Returns that pull, its warnings and
 * the version synced.
 */
export async function pullAfterUnmarkedDeletion(a: SyncService, path: string) {
  const version = a.state.synced(path)?.version;
  await Deno.remove(`${a.cacheDir}/${path}`);
  const warnings: WarningEvent[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.removed, []);
  assert.deepEqual(pulled.dropped, []);
  assert.deepEqual(pulled.droppedHere, [path]);
  assert.equal(a.state.synced(path)?.version, version, "the record kept at the synced version");
  assert.deepEqual(a.state.dirtyPaths(), [], "the deletion not marked");
  assert.deepEqual(warnings.map((w) => w.code), ["index_entry_dropped"]);
  return { pulled, warnings, version };
}
