/**
 * `resolve --theirs` while another process over the cache records a newer
 * conflict of the path after the resolution cleared its record, during its
 * pull (its own pull planned before the resolution moved the copy aside):
 * the resolution never reports the path done while that record is open,
 * and never writes the record it resolved over it. Nor is it done when its
 * pull sets aside a copy written at the path while it ran.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { processOver, put, read } from "./clone_kit.ts";
import { type ConflictRecord, setAsideCopies } from "./conflicts.ts";
import { defaultStateDir } from "../transfer/cache.ts";
import { setAsideReleased } from "../transfer/cache_state.ts";
import type { SyncService } from "./service.ts";
import { sha256Hex } from "../hash.ts";

const PATH = "notes/a.md";
const hashOf = (text: string) => sha256Hex(new TextEncoder().encode(text));

/** The record of PATH in the cache's conflicts file, as saved. */
async function saved(cacheDir: string): Promise<ConflictRecord | undefined> {
  const text = await Deno.readTextFile(`${defaultStateDir(cacheDir)}/conflicts.json`)
    .catch(() => '{"conflicts":{}}');
  return JSON.parse(text).conflicts[PATH];
}

/** The store's calls that answer with a promise. */
const CALLS = new Set(["get", "getStream", "head", "put", "delete"]);

/**
 * A store whose first call after `arm` runs the armed hook first (once):
 * the moment the resolution's pull begins to read the datastore.
 */
function hooked(
  store: InMemoryStore,
): { store: InMemoryStore; arm: (h: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  const proxied = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (!CALLS.has(String(prop))) return value.bind(target);
      return async (...args: unknown[]) => {
        const h = hook;
        hook = undefined;
        await h?.();
        return await value.apply(target, args);
      };
    },
  }) as InMemoryStore;
  return { store: proxied, arm: (h) => void (hook = h) };
}

/**
 * Process `a`'s conflict of PATH (its edit, theirs "two"), "three" published
 * since; process `b` over the same cache. Armed: at the first store call
 * after the resolution cleared its record, `b` records the conflict its
 * pull found (your edit in place, theirs "three"), then `during` runs.
 */
async function conflictOfA() {
  const base = new InMemoryStore();
  const { store, arm } = hooked(base);
  const peer = await processOver(base, await Deno.makeTempDir(), 9);
  await put(peer, PATH, "one");
  await peer.pushChanged();
  const cacheDir = await Deno.makeTempDir();
  const a = await processOver(store, cacheDir, 1);
  const b = await processOver(base, cacheDir, 2);
  await a.pullChanged();
  await put(a, PATH, "a's edit");
  await put(peer, PATH, "two");
  await peer.pushChanged();
  assert.deepEqual((await a.pullChanged()).conflicts, [PATH]);
  await put(peer, PATH, "three");
  await peer.pushChanged();
  const three = (await base.head(PATH))!;
  const one = a.state.synced(PATH)?.version;
  const newer: ConflictRecord = {
    path: PATH,
    mine: { location: PATH, hash: await hashOf("a's edit"), size: 8 },
    theirs: { version: three.version, hash: await hashOf("three"), size: 5 },
    ...(one ? { base: one } : {}),
    foundBy: "pull",
    at: 7,
    reason: "changed here and on the datastore",
  };
  const recordedBy = (b: SyncService | undefined, during: () => Promise<void> = async () => {}) =>
    arm(async () => {
      assert.equal(await saved(cacheDir), undefined, "the resolution cleared its record first");
      await b?.state.conflicts.record([newer]);
      await during();
    });
  return { store: base, cacheDir, a, b, three: three.version, recordedBy };
}

Deno.test("resolve --theirs whose pull runs while another process over the cache records a newer conflict of the path is not done: the record stays open, naming your edit where it was set aside", async () => {
  const { cacheDir, a, b, three, recordedBy } = await conflictOfA();
  recordedBy(b);
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(await read(a, PATH), "three", "the datastore's copy is at the path");
  assert.equal((await saved(cacheDir))?.theirs?.version, three, "the newer record is open");
  assert.equal(r.resolved, false, `reported done: ${JSON.stringify(r)}`);
  assert.equal(r.recordedMeanwhile, true);
  assert.deepEqual(r.conflicts, [PATH]);
  assert.deepEqual(r.leftBehind.conflicts, [PATH]);
  assert.equal(r.setAside.length, 1);
  const [moved] = r.setAside;
  assert.equal(await setAsideReleased(defaultStateDir(cacheDir), moved), false, "not released");
  for (const svc of [a, await processOver(new InMemoryStore(), cacheDir, 3)]) {
    const open = svc.conflicts().find((c) => c.path === PATH);
    assert.equal(open?.theirs?.version, three);
    assert.equal(open?.mine?.location, moved, "your edit is named where it was set aside");
  }
  assert.equal(await Deno.readTextFile(`${cacheDir}/${moved}`), "a's edit");
});

for (const how of ["blocked", "failed"] as const) {
  Deno.test(`resolve --theirs whose pull is ${how} after another process over the cache recorded a newer conflict of the path, once the resolution cleared its record: that record stays, naming your edit`, async () => {
    const { store, cacheDir, a, b, three, recordedBy } = await conflictOfA();
    recordedBy(b, async () => {
      if (how === "failed") throw new Error("the datastore went away");
      // A file where the path's directory was, emptied by the move: the pull is blocked.
      await Deno.writeTextFile(`${cacheDir}/notes`, "a file in the way");
    });
    await assert.rejects(() => a.resolveConflict(PATH, "theirs"));
    assert.equal(store.peekText(PATH), "three");
    const edit = await hashOf("a's edit");
    for (const svc of [a, await processOver(new InMemoryStore(), cacheDir, 3)]) {
      await svc.state.conflicts.refresh();
      const open = svc.conflicts().find((c) => c.path === PATH);
      assert.equal(
        open?.theirs?.version,
        three,
        `the newer record stands: ${JSON.stringify(open)}`,
      );
      const held = setAsideCopies(open).find((c) => c.hash === edit) ??
        (open?.mine?.hash === edit ? open.mine : undefined);
      assert.ok(held, `your edit is named: ${JSON.stringify(open)}`);
      assert.equal(
        await Deno.readTextFile(`${cacheDir}/${held.location}`),
        "a's edit",
        "the copy named holds your edit",
      );
    }
  });
}

Deno.test("resolve --theirs whose pull sets aside a new copy written at the path while it ran is not done: both copies are kept, and the path is left in conflict", async () => {
  const { cacheDir, a, recordedBy } = await conflictOfA();
  // No other process here: the hook only writes the copy, as the user does.
  recordedBy(undefined, async () => {
    await Deno.mkdir(`${cacheDir}/notes`, { recursive: true });
    await Deno.writeTextFile(`${cacheDir}/${PATH}`, "written meanwhile");
  });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.equal(r.resolved, false, JSON.stringify(r));
  assert.deepEqual(r.conflicts, [PATH]);
  assert.deepEqual(r.leftBehind.conflicts, [PATH]);
  const open = a.conflicts().find((c) => c.path === PATH);
  const texts = await Promise.all(
    setAsideCopies(open).map((c) => Deno.readTextFile(`${cacheDir}/${c.location}`)),
  );
  assert.deepEqual(texts.sort(), ["a's edit", "written meanwhile"], "both copies are named");
});
