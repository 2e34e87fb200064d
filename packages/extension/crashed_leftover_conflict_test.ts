/**
 * A run's flush over a cache where a crashed run of the same model left its
 * prepared versions (uploaded, never committed, still dirty), one of which
 * an older client then wrote over and published before another run's
 * commit: that commit records the leftover as a conflict
 * (`overwritten_before_commit`). The next run of the model writes its own
 * version. The leftover is no version of that run: it is set aside (kept,
 * said), and the run's own version is published by its own flush, never
 * refused with `version_exists` and then published by a later push.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { peerPush } from "../testing/layout_peer.ts";
import { createSluice } from "../../sluice.ts";
import { CHECKOUT_CONFIG, watchedDatastore, writeAsTool } from "./checkout_kit.ts";

const MODEL = { modelType: "shell/cmd", modelId: "mc" };
const LOCK_KEY = "data/shell/cmd/mc/.lock";
const OUT = "data/shell/cmd/mc/out";
const context = { models: [MODEL] };

/** One process of the tool over `cache` (one swamp command), as checkout `c`. */
function proc(store: InMemoryStore, cache: string) {
  const { ds, warnings, lines } = watchedDatastore(store, {
    createService: createSluice,
    name: "c",
  });
  const provider = () => ds.createProvider(CHECKOUT_CONFIG);
  const svc = provider().createSyncService("/repo/c", cache);
  const lock = (key?: string) =>
    provider().createLock("/repo/c/.swamp", { ...(key ? { lockKey: key } : {}), maxWaitMs: 500 });
  /** acquireModelLocks: the model's lock, then its scoped pull. */
  const start = async () => {
    const l = lock(LOCK_KEY);
    await l.acquire();
    await svc.pullChanged({ context });
    return l;
  };
  /** The method: the next version (above the highest in the cache), its metadata and the marker. */
  const method = async (text: string) => {
    let n = 1;
    while (await Deno.stat(`${cache}/${OUT}/${n}`).then(() => true, () => false)) n++;
    await svc.markDirty({ relPath: OUT });
    await Deno.mkdir(`${cache}/${OUT}/${n}`, { recursive: true });
    await Deno.writeTextFile(`${cache}/${OUT}/${n}/raw`, text);
    await svc.markDirty({ relPath: `${OUT}/${n}` });
    await Deno.writeTextFile(`${cache}/${OUT}/${n}/metadata.yaml`, `version: ${n}\nby: ${text}\n`);
    await writeAsTool(cache, `${OUT}/latest`, `${n}`);
    return n;
  };
  /** `fn` under the global lock. */
  const underGlobal = async <T>(fn: () => Promise<T>): Promise<T> => {
    const g = lock();
    await g.acquire();
    try {
      return await fn();
    } finally {
      await g.release();
    }
  };
  /**
   * A whole run: lock, pull, method and flush (two-phase: `between` runs
   * between its prepare and its commit), then the lock released.
   */
  const run = async (text: string, o: { twoPhase: boolean; between?: () => Promise<void> }) => {
    const l = await start();
    let n = 0;
    try {
      n = await method(text);
      if (!o.twoPhase) return { n, pushed: await underGlobal(() => svc.pushChanged({ context })) };
      const manifest = await svc.preparePush!({ context });
      await o.between?.();
      return { n, pushed: await underGlobal(() => svc.commitPush!(manifest, {})) };
    } catch (error) {
      return { n, error };
    } finally {
      await l.release().catch(() => {});
    }
  };
  /** A structural command's push (or `sluice push`): under the global lock, naming no model. */
  const push = () => underGlobal(() => svc.pushChanged({}));
  return { svc, warnings, lines, lock, start, method, run, push };
}

/** The set-aside copies in `cache` of the cache-relative `rel`, their contents. */
async function setAside(cache: string, rel: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (p.endsWith(`/${rel}`)) out.push(await Deno.readTextFile(p));
    }
  };
  await walk(`${cache}/_control/.sluice/set-aside`).catch(() => {});
  return out;
}

for (const twoPhase of [true, false]) {
  Deno.test(
    `crashed run's leftover lost to an older client's version: the next run's ${
      twoPhase ? "two-phase" : "one-phase"
    } flush sets it aside and publishes the run's own version, not refused for it`,
    async () => {
      const store = new InMemoryStore();
      const cache = await Deno.makeTempDir({ prefix: "sluice-ext-leftover-" });
      // 1. The cache gets version 1.
      assert.equal((await proc(store, cache).run("seed", { twoPhase: true })).n, 1);
      // 2. A run writes versions 2..4 and uploads them, then its process dies
      // before its commit; its lock is taken over as stale.
      const crashed = proc(store, cache);
      await crashed.start();
      for (const i of [2, 3, 4]) assert.equal(await crashed.method(`crashed-${i}`), i);
      await crashed.svc.preparePush!({ context });
      const breaker = crashed.lock(LOCK_KEY);
      const info = await breaker.inspect();
      assert.ok(info?.nonce);
      assert.equal(await breaker.forceRelease(info.nonce), true);
      // 3. A run writes version 5; between its prepare and its commit an older
      // client writes its own version 2 over the crashed run's upload and
      // commits it, with its marker. The commit leaves version 2 out, a conflict.
      const p1 = proc(store, cache);
      const r1 = await p1.run("P1", {
        twoPhase: true,
        between: () =>
          peerPush(store, {
            [`${OUT}/2/raw`]: "old-2",
            [`${OUT}/2/metadata.yaml`]: "version: 2\nby: old\n",
            [`${OUT}/latest`]: "2",
          }),
      });
      assert.equal(r1.error, undefined, String(r1.error));
      assert.equal(r1.n, 5);
      assert.ok(p1.warnings.some((w) => w.code === "overwritten_before_commit"));
      assert.equal(store.peekText(`${OUT}/5/raw`), "P1");
      // 4. The next run writes version 6: its flush publishes it.
      const p3 = proc(store, cache);
      const r3 = await p3.run("P3", { twoPhase });
      assert.equal(r3.n, 6);
      assert.equal(
        r3.error,
        undefined,
        `refused for a version not its own: ${(r3.error as Error | undefined)?.message}`,
      );
      assert.equal(store.peekText(`${OUT}/6/raw`), "P3");
      assert.equal(store.peekText(`${OUT}/latest`), "6");
      // The leftover: the older client's version stands, the crashed run's
      // copy is kept aside, and the run's user is told.
      assert.equal(store.peekText(`${OUT}/2/raw`), "old-2");
      assert.deepEqual(await setAside(cache, `${OUT}/2/raw`), ["crashed-2"]);
      const said = p3.warnings.filter((w) => w.code === "version_exists");
      assert.equal(said.length, 1, JSON.stringify(p3.warnings.map((w) => w.code)));
      assert.match(said[0].message, new RegExp(`${OUT}/2/raw`));
      assert.match(said[0].message, /not this run's/);
      // 5. Nothing is left for a later push.
      assert.equal(await proc(store, cache).push(), 0);
    },
  );
}
