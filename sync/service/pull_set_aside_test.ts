/**
 * A pull sets aside a local copy this cache never synced, differing from
 * the datastore's, before it fetches the datastore's copy. When that fetch
 * writes nothing there (another writer's uncommitted object, a vanished
 * object, a blocked path, a failed fetch), the copy goes back to its path
 * while nothing is there, with no conflict left naming it; else it stays set
 * aside, named by the conflict, and the warnings say what happened.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";
import type { WarningEvent } from "../events.ts";
import { PathBlockedError } from "../errors.ts";
import { PutModes } from "../ports.ts";
import { STATE_DIR } from "../transfer/cache.ts";

const P = "notes/n.txt";
const MINE = "b's own copy, never synced";

/** `store`, running `hooks[key]` (which may throw) before each read of `key` (`get`, `getStream`). */
function beforeReads(
  store: InMemoryStore,
  hooks: Record<string, () => Promise<void> | void>,
): InMemoryStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "getStream") return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        await hooks[key]?.();
        return await value.call(target, key, ...rest);
      };
    },
  }) as InMemoryStore;
}

/**
 * a pushed `paths` ("a's v1"); b (over `hooks` on reads, if any) holds its
 * own copy of each, never synced, and records its warnings.
 */
async function unsynced(
  hooks: Record<string, () => Promise<void> | void> = {},
  paths: readonly string[] = [P],
) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(beforeReads(store, hooks), "b");
  for (const p of paths) await put(a, p, "a's v1");
  await a.pushChanged();
  for (const p of paths) await put(b, p, MINE, false);
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  return { store, a, b, warnings };
}

/** The copies in b's set-aside area (each stamp directory's files). */
async function setAsideFiles(b: SyncService): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for await (const e of Deno.readDir(`${b.cacheDir}/${rel}`)) {
      if (e.isDirectory) await walk(`${rel}/${e.name}`);
      else out.push(`${rel}/${e.name}`);
    }
  };
  await walk(`${STATE_DIR}/set-aside`).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  return out;
}

/** b's copy is back at its path, no conflict names it (here or saved), nothing is left set aside. */
async function assertPutBack(store: InMemoryStore, b: SyncService) {
  assert.equal(await read(b, P), MINE, "the copy is back at its path");
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual((await clone(store, "b", b.cacheDir)).conflicts(), [], "none saved either");
  assert.deepEqual(await setAsideFiles(b), []);
}

Deno.test("a copy set aside for a datastore object another writer has not committed goes back to its path", async () => {
  const { store, b, warnings } = await unsynced();
  await store.put(P, new TextEncoder().encode("in flight"), PutModes.overwrite);
  const r = await b.pullChanged();
  assert.deepEqual(r.uncommitted, [P]);
  assert.deepEqual([r.fetched, r.setAside, r.conflicts], [[], [], []]);
  await assertPutBack(store, b);
  // Only the skip is told, and its "the cached copy was kept" is true.
  assert.deepEqual(warnings.map((w) => w.code), ["pull_skipped_uncommitted"]);
  assert.match(warnings[0].message, /The cached copy was kept/);
});

Deno.test("a copy set aside for a datastore object that vanished goes back to its path", async () => {
  const { store, b, warnings } = await unsynced();
  await store.delete(P);
  const r = await b.pullChanged();
  assert.deepEqual([r.fetched, r.setAside, r.conflicts], [[], [], []]);
  await assertPutBack(store, b);
  assert.deepEqual(warnings.map((w) => w.code), ["index_entry_dangling"]);
});

Deno.test("a copy set aside for a fetch that fails goes back to its path, and the pull's error is reported", async () => {
  const { store, b, warnings } = await unsynced({
    [P]: () => Promise.reject(new Error("refused by the test")),
  });
  await assert.rejects(b.pullChanged(), /refused by the test/);
  await assertPutBack(store, b);
  assert.deepEqual(warnings.map((w) => w.code), []);
});

Deno.test("a copy set aside for a path found blocked at the write goes back to its path while nothing is there", async () => {
  const { store, b, warnings } = await unsynced();
  const write = b.cache.writeWithStat.bind(b.cache);
  b.cache.writeWithStat = (p, body, expect) =>
    p === P
      ? Promise.reject(new PathBlockedError(p, "a directory is at that path in the cache"))
      : write(p, body, expect);
  const r = await b.pullChanged();
  assert.deepEqual(r.blocked, [P]);
  assert.deepEqual([r.fetched, r.setAside, r.conflicts], [[], [], []]);
  await assertPutBack(store, b);
  assert.deepEqual(warnings.map((w) => w.code), ["path_blocked"]);
});

Deno.test("a copy set aside for a path a file now blocks stays set aside, named by its conflict, and the warnings say the datastore's copy was not written", async () => {
  const late: { b?: SyncService } = {};
  const t = await unsynced({
    [P]: async () => {
      // The copy is set aside by now, its directory empty: a file takes the directory's name.
      await Deno.remove(`${late.b!.cacheDir}/notes`);
      await Deno.writeTextFile(`${late.b!.cacheDir}/notes`, "a file in the way");
    },
  });
  const b = late.b = t.b;
  const r = await b.pullChanged();
  assert.deepEqual(r.blocked, [P]);
  assert.equal(r.setAside.length, 1);
  const aside = r.setAside[0];
  assert.equal(await read(b, aside), MINE, "kept set aside");
  assert.equal(await read(b, "notes"), "a file in the way", "what is in the way is kept");
  assert.deepEqual(r.conflicts, [P]);
  assert.equal(b.conflicts()[0].mine?.location, aside, "the conflict names the copy");
  const told = Object.fromEntries(t.warnings.map((w) => [w.code, w.message]));
  assert.deepEqual(Object.keys(told).sort(), ["local_set_aside", "path_blocked", "pull_conflict"]);
  assert.match(
    told.local_set_aside,
    /set aside in .*, and the datastore's copy was not written there \(a file or directory in the cache is in its way\); something is at notes\/n\.txt now \(or in its way\), kept as it is, so the copy stays there\. Compare them, then `sluice resolve notes\/n\.txt/,
  );
  assert.doesNotMatch(told.local_set_aside, /was pulled/);
  assert.match(told.pull_conflict, /the datastore's copy was not written there/);
});

Deno.test("a copy set aside for a path where a file was saved while the pull fetched stays set aside, named by its conflict; the new file is kept", async () => {
  const late: { b?: SyncService } = {};
  const t = await unsynced({
    [P]: () => Deno.writeTextFile(`${late.b!.cacheDir}/${P}`, "saved meanwhile"),
  });
  const b = late.b = t.b;
  const r = await b.pullChanged();
  assert.equal(await read(b, P), "saved meanwhile");
  assert.equal(r.setAside.length, 1);
  assert.equal(await read(b, r.setAside[0]), MINE);
  assert.equal(b.conflicts()[0].mine?.location, r.setAside[0]);
  const told = t.warnings.find((w) => w.code === "local_set_aside");
  assert.match(told?.message ?? "", /not written there \(the path changed while it was fetched\)/);
});

Deno.test("a copy set aside for a fetch still under way when another fails stays set aside, named by the conflict the failing pull saved", async () => {
  const Q = "notes/q.txt";
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const late: { store?: InMemoryStore } = {};
  const t = await unsynced({
    [P]: async () => {
      await held;
      // Then another writer's write, not committed: the fetch writes nothing.
      await late.store!.put(P, new TextEncoder().encode("in flight"), PutModes.overwrite);
    },
    [Q]: () => Promise.reject(new Error("refused by the test")),
  }, [P, Q]);
  const { b, store } = t;
  late.store = store;
  const told = new Promise<WarningEvent>((resolve) =>
    b.events.on("warning", (w) => w.code === "local_set_aside" && resolve(w))
  );
  await assert.rejects(b.pullChanged(), /refused by the test/);
  release();
  const w = await told;
  assert.equal(w.path, P);
  assert.match(w.message, /the pull failed meanwhile and recorded the conflict naming it/);
  // Q's copy went back before the records were saved; P's stays named by its saved record.
  assert.equal(await read(b, Q), MINE);
  assert.equal(await read(b, P), undefined);
  const recs = (await clone(store, "b", b.cacheDir)).conflicts();
  assert.deepEqual(recs.map((c) => c.path), [P]);
  assert.equal(await read(b, recs[0].mine?.location ?? ""), MINE);
  assert.deepEqual(
    (await setAsideFiles(b)).sort(),
    [
      recs[0].mine!.location,
      `${recs[0].mine!.location.slice(0, -P.length)}REASON.json`,
    ].sort(),
  );
});

Deno.test("a copy set aside for a datastore copy that is written stays set aside, named by its conflict, and is told of as before", async () => {
  const { b, warnings } = await unsynced();
  const r = await b.pullChanged();
  assert.deepEqual(r.fetched, [P]);
  assert.equal(await read(b, P), "a's v1");
  assert.equal(r.setAside.length, 1);
  const aside = r.setAside[0];
  assert.match(aside, /^\.sluice\/set-aside\/.+\/notes\/n\.txt$/);
  assert.equal(await read(b, aside), MINE);
  assert.deepEqual(r.conflicts, [P]);
  assert.equal(b.conflicts()[0].mine?.location, aside);
  assert.deepEqual(warnings.map((w) => w.code), ["local_set_aside", "pull_conflict"]);
  assert.match(
    warnings[0].message,
    /the local copy was set aside in .* and the datastore's copy was pulled/,
  );
  assert.match(warnings[1].message, /set aside in .* and the datastore's copy taken/);
});

Deno.test("a copy deleted here just before the pull sets it aside: nothing is set aside, the datastore's copy is pulled, no conflict", async () => {
  const { b, warnings } = await unsynced();
  const setAside = b.cache.setAside.bind(b.cache);
  b.cache.setAside = async (...args: Parameters<typeof setAside>) => {
    await Deno.remove(`${b.cacheDir}/${P}`); // the user deletes it between the look and the move
    return await setAside(...args);
  };
  const r = await b.pullChanged();
  assert.deepEqual([r.fetched, r.setAside, r.conflicts], [[P], [], []]);
  assert.equal(await read(b, P), "a's v1");
  assert.deepEqual(b.conflicts(), []);
  assert.deepEqual(await setAsideFiles(b), [], "no reason left without its copy");
  assert.deepEqual(warnings.map((w) => w.code), []);
});

/** `a` published `notes/n.txt`; `b`, holding a copy of its own never synced, pulled: its copy set aside. */
async function pulledOverOwnCopy() {
  const path = "notes/n.txt";
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, "a's\n");
  await a.pushChanged();
  await put(b, path, "b's, never synced\n", false);
  await b.pullChanged(); // b's copy set aside, a's in place
  return { path, store, b };
}

Deno.test("resolve --mine of a copy a pull set aside never writes over an edit saved while it runs: refused (file_changed), the edit and the copy kept", async () => {
  const { path, store, b } = await pulledOverOwnCopy();
  assert.equal(await read(b, path), "a's\n");
  // The user saves an edit right after the resolution looked at the path.
  const hashFile = b.cache.hashFile.bind(b.cache);
  let saved = false;
  b.cache.hashFile = async (p: string) => {
    const got = await hashFile(p);
    if (p === path && !saved) {
      saved = true;
      await Deno.writeTextFile(`${b.cacheDir}/${path}`, "saved meanwhile\n");
    }
    return got;
  };
  await assert.rejects(
    () => b.resolveConflict(path, "mine"),
    (e: Error & { code?: string }) => e.code === "file_changed",
  );
  assert.equal(await read(b, path), "saved meanwhile\n");
  assert.equal(store.peekText(path), "a's\n", "nothing published");
  assert.ok(b.conflicts().some((c) => c.path === path), "the conflict stays open");
  const aside = b.conflicts().find((c) => c.path === path)!.mine!.location;
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${aside}`), "b's, never synced\n");
});

Deno.test("resolve --mine of a set-aside copy moved back to its path by hand, unchanged, publishes it (never sends the user between --mine and --merged)", async () => {
  const { path, store, b } = await pulledOverOwnCopy();
  const aside = b.conflicts().find((c) => c.path === path)!.mine!.location;
  await Deno.rename(`${b.cacheDir}/${aside}`, `${b.cacheDir}/${path}`);
  const r = await b.resolveConflict(path, "mine");
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(path), "b's, never synced\n");
});
