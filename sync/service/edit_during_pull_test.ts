/**
 * A pull checks a local copy, then fetches the datastore's copy over it, or
 * looks at the datastore before removing it: a user's edit (or deletion)
 * saved in between is kept, and the pull records a conflict, never a
 * silent overwrite or removal.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";
import { createSluice } from "../../sluice.ts";
import { FakeClock, waitFor } from "../../packages/testing/mod.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";

const P = "notes/n.txt";

/** `store`, running `hook` once, just before the first read (`get`, `getStream`) or `head` of `key` made while armed. */
function onRead(
  store: InMemoryStore,
  method: "get" | "head",
  key: string,
): { store: InMemoryStore; arm: (hook: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  const proxied = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== method && !(method === "get" && prop === "getStream")) {
        return value.bind(target);
      }
      return async (k: string, ...rest: unknown[]) => {
        if (k === key && hook) {
          const h = hook;
          hook = undefined;
          await h();
        }
        return await value.call(target, k, ...rest);
      };
    },
  }) as InMemoryStore;
  return { store: proxied, arm: (h) => void (hook = h) };
}

/** Clones `a` and `b` over one new store, `b`'s store running a hook `arm` set before its next read or look at `key`. */
async function hookedPair(method: "get" | "head", key: string) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const hooked = onRead(store, method, key);
  const b = await clone(hooked.store, "b");
  return { store, a, b, arm: hooked.arm };
}

type Client = Awaited<ReturnType<typeof clone>>;

/** P pushed by `a` and pulled by `b`, then deleted by `a` and that pushed. */
async function pulledThenDeletedThere(a: Client, b: Client) {
  await put(a, P, "v1");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/${P}`);
  await a.markDirty({ relPath: P });
  await a.pushChanged();
}

/** `a` makes P again and commits it; `b`'s user then deletes `b`'s copy. */
async function madeAgainThereDeletedHere(a: Client, b: Client) {
  await put(a, P, "v2, made again by a");
  await a.pushChanged();
  await Deno.remove(`${b.cacheDir}/${P}`);
}

/** `b`'s next pull leaves its deletion of P standing, as a conflict. */
async function assertDeletionStands(b: Client) {
  const r = await b.pullChanged();
  assert.equal(await read(b, P), undefined, "the deletion here is not undone by the next pull");
  assert.deepEqual(r.fetched, []);
  assert.deepEqual(r.conflicts, [P], "deleted here, made again there: a conflict");
  assert.equal(b.conflicts()[0].mine, null);
}

for (const large of [false, true]) {
  Deno.test(`an edit saved while the pull downloads the file${large ? " (streamed)" : ""} is kept, as a conflict`, async () => {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    const reads = onRead(store, "get", P);
    const b = await createSluice({
      cacheDir: await Deno.makeTempDir({ prefix: "sluice-b-" }),
      store: reads.store,
      identity: { holder: "b@host", hostname: "host", pid: 2 },
      clock: new FakeClock(),
      config: {
        retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 },
        ...(large ? { streamThresholdBytes: 4 } : {}),
      },
      conditional: new ConditionalWrites(),
    });
    await put(a, P, "v1");
    await a.pushChanged();
    await b.pullChanged();
    await put(a, P, "v2 from a");
    await a.pushChanged();
    reads.arm(() => Deno.writeTextFile(`${b.cacheDir}/${P}`, "b's edit, not pushed"));
    const r = await b.pullChanged();
    assert.equal(await read(b, P), "b's edit, not pushed", "the edit is kept");
    assert.deepEqual(r.fetched, []);
    assert.deepEqual(r.conflicts, [P], "and the pull says it is a conflict");
    assert.equal(b.conflicts()[0].theirs?.size, "v2 from a".length);
    // The conflict resolves like any other: here, by taking theirs.
    await b.resolveConflict(P, "mine");
    assert.equal(store.peekText(P), "b's edit, not pushed");
  });
}

Deno.test("a deletion by hand while the pull downloads the file stands, as a conflict", async () => {
  const { a, b, arm: reads } = await hookedPair("get", P);
  await put(a, P, "v1");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, P, "v2 from a");
  await a.pushChanged();
  reads(() => Deno.remove(`${b.cacheDir}/${P}`));
  const r = await b.pullChanged();
  assert.equal(await read(b, P), undefined, "not brought back");
  assert.deepEqual(r.conflicts, [P]);
  assert.equal(b.conflicts()[0].mine, null, "deleted here, changed there");
});

Deno.test("a new file saved at a path the pull is fetching for the first time is kept, as a conflict", async () => {
  const { store, a, b, arm: reads } = await hookedPair("get", P);
  await put(a, "notes/other.txt", "o");
  await put(a, P, "a's");
  await a.pushChanged();
  reads(async () => {
    await Deno.mkdir(`${b.cacheDir}/notes`, { recursive: true });
    await Deno.writeTextFile(`${b.cacheDir}/${P}`, "b's new file");
  });
  const r = await b.pullChanged();
  assert.equal(await read(b, P), "b's new file");
  assert.deepEqual(r.conflicts, [P]);
  // Its directory was missing when the pull looked: the new file is a change here, never a
  // deletion (which `--mine` would settle by deleting the datastore's copy).
  assert.notEqual(b.conflicts()[0].mine, null, "a change here, not a deletion");
  assert.equal(await read(b, "notes/other.txt"), "o", "the rest of the pull went on");
  await b.resolveConflict(P, "mine");
  assert.equal(store.peekText(P), "b's new file", "--mine publishes the new file");
});

Deno.test("an edit saved while the pull looks at a file deleted on the datastore is kept, as a conflict", async () => {
  const { a, b, arm: looks } = await hookedPair("head", P);
  await pulledThenDeletedThere(a, b);
  looks(() => Deno.writeTextFile(`${b.cacheDir}/${P}`, "b's edit, not pushed"));
  const r = await b.pullChanged();
  assert.equal(await read(b, P), "b's edit, not pushed", "not removed");
  assert.deepEqual(r.removed, []);
  assert.deepEqual(r.conflicts, [P]);
  assert.equal(b.conflicts()[0].theirs, null, "changed here, deleted there");
});

Deno.test("a directory emptied by a pull's removal is removed too, so that a file of its name is fetched", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "clash/x.txt", "under a directory");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/clash`, { recursive: true });
  await a.markDirty({ relPath: "clash/x.txt" });
  await a.pushChanged();
  await put(a, "clash", "now a file");
  await a.pushChanged();
  const first = await b.pullChanged();
  assert.deepEqual(first.removed, ["clash/x.txt"]);
  const second = await b.pullChanged();
  assert.deepEqual(second.blocked ?? [], [], "nothing in the way any more");
  assert.equal(await read(b, "clash"), "now a file");
});

Deno.test("a new file saved in a directory the pull made for another file is kept, as a conflict", async () => {
  const { a, b, arm: reads } = await hookedPair("get", P);
  await put(a, "notes/a-first.txt", "o");
  await put(a, P, "a's");
  await a.pushChanged();
  // notes/ is made by the pull for the first file; the user saves n.txt there before its write.
  reads(async () => {
    await waitFor(async () => await read(b, "notes/a-first.txt") !== undefined, {
      clock: new FakeClock(),
    });
    await Deno.mkdir(`${b.cacheDir}/notes`, { recursive: true });
    await Deno.writeTextFile(`${b.cacheDir}/${P}`, "b's new file");
  });
  const r = await b.pullChanged();
  assert.equal(await read(b, P), "b's new file");
  assert.deepEqual(r.conflicts, [P]);
});

Deno.test("a deletion by hand while the pull looks at a file deleted on the datastore and made again since stands, as a conflict", async () => {
  const { store, a, b, arm: looks } = await hookedPair("head", P);
  await pulledThenDeletedThere(a, b);
  // After b's pull read the index (naming no entry at P), a makes the file
  // again and commits it; b's user then deletes b's copy, before the pull's
  // look at the store finds a's new version there.
  looks(() => madeAgainThereDeletedHere(a, b));
  await b.pullChanged();
  assert.equal(store.peekText(P), "v2, made again by a");
  await assertDeletionStands(b);
});

Deno.test("a deletion by hand before the pull's look at a file deleted on the datastore and made again since stands, as a conflict", async () => {
  const Q = "notes/q.txt";
  const { store, a, b, arm: fetches } = await hookedPair("get", Q);
  await pulledThenDeletedThere(a, b);
  await put(a, Q, "q1");
  await a.pushChanged();
  // b's pull reads the index (naming Q, no entry at P); while it fetches Q,
  // a makes P again and commits it, and b's user deletes b's copy of P: the
  // pull then finds it gone here, and a's new version on the store.
  fetches(() => madeAgainThereDeletedHere(a, b));
  const first = await b.pullChanged();
  assert.deepEqual(first.fetched, [Q]);
  assert.equal(store.peekText(P), "v2, made again by a");
  await assertDeletionStands(b);
});
