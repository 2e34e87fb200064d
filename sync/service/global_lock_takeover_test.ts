/**
 * A push under its own global lock (beside old clients) whose lock is taken
 * over during its commit, faster than a heartbeat: the commit is warned of
 * (global_lock_lost), as the tool's hold of the lock is.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import {
  FakeClock,
  hookedStore,
  InMemoryStore,
  writeCacheFile,
} from "../../packages/testing/mod.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { globalLockKey } from "../locks/model_locks.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";
import type { WarningEvent } from "../events.ts";

Deno.test("a push under its own global lock, taken over during its commit before a heartbeat saw it, warns global_lock_lost", async () => {
  const clock = new FakeClock();
  const inner = new InMemoryStore({ clock });
  await inner.put(
    META_KEY,
    metaBody({ version: 2, partitions: [], commitSeq: 0, raw: {} }),
    { kind: "create" },
  );
  const key = globalLockKey();
  let takeOver: (() => Promise<void>) | undefined;
  const store = hookedStore(inner, {
    before: async (k) => {
      if (k !== META_KEY || !takeOver) return;
      const t = takeOver;
      takeOver = undefined;
      await t();
    },
  });
  const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
  const mk = async (name: string) =>
    await createSluice({
      cacheDir: await Deno.makeTempDir({ prefix: `sluice-gl-${name}-` }),
      store,
      identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
      clock,
      config: quick,
    });
  const a = await mk("a");
  const other = await mk("old");
  await writeCacheFile(a.cacheDir, "notes/a.txt", "a");
  await a.markDirty({ relPath: "notes/a.txt" });
  const seen: WarningEvent[] = [];
  a.events.on("warning", (w) => seen.push(w));
  // Another client breaks the lock and takes it, between two heartbeats.
  takeOver = async () => {
    await inner.delete(key);
    const theirs = other.lockBackend!.createLock(key, {
      holder: "old@host",
      hostname: "host",
      pid: 2,
    });
    await theirs.acquire();
  };
  const lock = a.lockBackend!.createLock(key, { holder: "a@host", hostname: "host", pid: 1 });
  await pushUnderGlobalLock(a, lock);
  assert.equal(takeOver, undefined, "the lock was taken over during the commit");
  assert.ok(
    seen.some((w) => w.code === "global_lock_lost"),
    `warned: ${JSON.stringify(seen.map((w) => w.code))}`,
  );
});
