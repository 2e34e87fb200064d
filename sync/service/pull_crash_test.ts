/**
 * A pull records each file it fetched as synced before it goes on: when its
 * process dies part way, the next run knows which files were fetched, and a
 * fetched file the user deleted by hand meanwhile is a local deletion to
 * push, not a file to fetch back.
 */
import assert from "node:assert/strict";
import { type FakeClock, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import { clone, put, read, stopsAtDownload } from "./clone_kit.ts";
import { LOCAL_DELETION_REASON, type SyncService } from "./service.ts";

const FIRST = "notes/1.txt";
const SECOND = "notes/2.txt";

/** A pull into a new cache that fetches FIRST, then dies fetching SECOND after FIRST was deleted by hand. */
async function diedAfterFirstFetch(
  store: InMemoryStore,
): Promise<{ dir: string; dead: SyncService }> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-b-" });
  let died!: () => void;
  const death = new Promise<void>((resolve) => died = resolve);
  const { store: dying } = stopsAtDownload(store, SECOND, () => {
    // The user deletes the file the pull fetched, and the process dies.
    Deno.removeSync(`${dir}/${FIRST}`);
    died();
  });
  const dead = await clone(dying, "b", dir, { concurrency: 1 });
  void dead.pullChanged();
  await death;
  dead.state.release(); // what the process's exit does to its open files
  return { dir, dead };
}

Deno.test("a file the pull fetched before its process died, then deleted by hand, is not fetched back: the deletion is pushed", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, FIRST, "one");
  await put(a, SECOND, "two");
  await a.pushChanged();
  const { dir } = await diedAfterFirstFetch(store);
  const b = await clone(store, "b", dir);
  const r = await b.pullChanged();
  assert.deepEqual(r.fetched, [SECOND], "the file it had fetched is not fetched again");
  assert.equal(await read(b, FIRST), undefined, "the deletion by hand stands");
  const status = await b.status({ walk: true });
  assert.deepEqual(status.map((s) => [s.path, s.reason]), [[FIRST, LOCAL_DELETION_REASON]]);
  await b.markDirty({ relPath: FIRST });
  await b.pushChanged();
  assert.equal(store.peek(FIRST), undefined, "pushed as a deletion");
  await a.pullChanged();
  assert.equal(await read(a, FIRST), undefined, "which a peer's pull takes");
});

Deno.test({
  name:
    "a fetch that ends after its pull failed writes no record ahead (its log would stay open): the record waits for the next save",
  fn: async () => {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    await put(a, FIRST, "one");
    await put(a, SECOND, "two");
    await a.pushChanged();
    let broken = true;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => open = resolve);
    const failing = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop !== "get" && prop !== "getStream") return value.bind(target);
        return async (k: string, ...rest: unknown[]) => {
          if (k === FIRST && broken) throw new Error("bad object"); // not a transport error: not retried
          if (k === SECOND) await gate;
          return await value.call(target, k, ...rest);
        };
      },
    });
    const b = await clone(failing, "b", undefined, { concurrency: 2 });
    await assert.rejects(b.pullChanged(), /bad object/);
    open(); // the second fetch, still running, ends now
    await waitFor(() => b.state.synced(SECOND) !== undefined, { clock: b.clock as FakeClock });
    const log = await Deno.readTextFile(`${b.cacheDir}/.sluice/manifest.log`).catch(() => "");
    assert.doesNotMatch(log, /notes\/2\.txt/, "nothing written after the pull's last save");
    broken = false;
    await b.pullChanged();
    assert.equal(await read(b, FIRST), "one");
  },
});
