/**
 * This cache's own write whose commit landed with its answer lost, then
 * replaced here by a directory of its name: the push of that name takes the
 * entry naming the write out first, then deletes the object. A peer that
 * synced that version and pulls in between finds the entry gone while the
 * store still holds it, takes it for an entry another client dropped, and
 * names it again. When the process stops right after its delete, before it
 * reads the index again, the index names an object the store no longer
 * holds: the next sync over the cache must take that entry out (chaos seed
 * 182700371, I7 and I8).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import {
  clone,
  createAnswerLost,
  put,
  quick,
  read,
  updateAnswerLost,
  v2Store,
} from "./clone_kit.ts";

const PATH = "notes/n.md";

/**
 * `store` as one process sees it: `hook` runs ahead of each delete, and once
 * a delete `stopAfter` picks landed, every later call fails, as if the
 * process were gone.
 */
function stoppable(
  store: InMemoryStore,
  hook: (key: string, ifVersion: string | undefined) => Promise<boolean>,
): InMemoryStore {
  let stopped = false;
  const calls = new Set(["get", "getStream", "head", "put", "delete", "list"]);
  const gone = () => new UnreachableError("the process stopped");
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !calls.has(prop)) return value.bind(target);
      return (...args: unknown[]) => {
        if (stopped) {
          if (prop !== "list") return Promise.reject(gone());
          return (async function* () {
            yield* [];
            throw gone();
          })();
        }
        if (prop !== "delete") return value.apply(target, args);
        return (async () => {
          const key = args[0] as string;
          const o = args[1] as { ifVersion?: string } | undefined;
          const stopAfter = await hook(key, o?.ifVersion);
          const r = await value.apply(target, args);
          if (stopAfter) stopped = true;
          return r;
        })();
      };
    },
  });
}

/** Each path the index names whose object the store does not hold at that version. */
async function dangling(store: InMemoryStore): Promise<string[]> {
  const out: string[] = [];
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  for (const [p, e] of Object.entries(entries)) {
    if ((await store.head(p))?.version !== e.v) out.push(p);
  }
  return out.sort();
}

for (const v2 of [false, true]) {
  for (const synced of [false, true]) {
    Deno.test(
      `${v2 ? "v2" : "v1"}: ${
        synced ? "an update" : "a new file"
      } whose commit answer was lost, replaced here by a directory, named again by a peer between the entry's removal and the delete, the process stopped after the delete: the next sync takes the entry out`,
      async () => {
        const base = v2 ? await v2Store() : new InMemoryStore();
        const b = await clone(base, "b");
        let warnings: string[] = [];
        b.events.on("warning", (w) => void warnings.push(w.code));
        // Armed: just before the delete of the own write, the peer syncs;
        // once that delete landed, the process stops.
        let own = "";
        let armed = false;
        const dying = stoppable(base, async (key, ifVersion) => {
          if (!armed || key !== PATH || ifVersion !== own) return false;
          armed = false;
          await b.pullChanged().catch(() => {});
          await b.pushChanged();
          return true;
        });
        const first = await clone(dying, "a");
        await put(first, "other.md", "beside");
        await first.pushChanged();
        if (synced) {
          await put(first, PATH, "one");
          await first.pushChanged();
        }
        own = v2
          ? await updateAnswerLost(base, first, PATH, "two")
          : await createAnswerLost(base, first, PATH, "two");
        assert.notEqual(first.state.synced(PATH)?.version, own, "never recorded as synced");
        await b.pullChanged();
        assert.equal(await read(b, PATH), "two", "the peer synced the own write");
        await Deno.remove(`${first.cacheDir}/${PATH}`);
        await put(first, `${PATH}/x.md`, "under a directory now", false);
        await first.markDirty({ relPath: PATH });
        warnings = [];
        armed = true;
        await assert.rejects(first.pushChanged(), /process stopped/);
        assert.ok(warnings.includes("index_entry_dropped"), "the peer named the entry again");
        assert.equal(await base.head(PATH), null, "the own write was deleted");
        // The process is gone; the next one over the cache syncs as the final sync does.
        const a = await clone(base, "a", first.cacheDir);
        await a.pushChanged().catch(() => {});
        await a.pullChanged().catch(() => {});
        await a.pushChanged().catch(() => {});
        await b.pullChanged().catch(() => {});
        await b.pushChanged().catch(() => {});
        await a.pullChanged().catch(() => {});
        await a.pushChanged().catch(() => {});
        assert.deepEqual(await dangling(base), [], "the index names nothing the store lacks");
        const fresh = await clone(base, "c");
        await fresh.pullChanged();
        assert.equal(await read(fresh, PATH), undefined);
        assert.equal(await read(fresh, `${PATH}/x.md`), "under a directory now");
        assert.equal(await read(fresh, "other.md"), "beside");
      },
    );
  }
}
