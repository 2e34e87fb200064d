/**
 * `resolve --theirs` of a conflict whose theirs, another writer's upload no
 * index names, is gone, while another process over the cache records a
 * newer conflict of the path as the resolution looks at what the store
 * holds there: the resolution never reports the path done while that
 * record is open, nor releases the copy of your edit it names.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { clone, processOver, put } from "./clone_kit.ts";
import { committedEdits, cutOffUpload, PATH } from "./resolve_upload_kit.ts";
import { type ConflictRecord, setAsideCopies } from "./conflicts.ts";
import { defaultStateDir } from "../transfer/cache.ts";
import { setAsideReleased } from "../transfer/cache_state.ts";
import { sha256Hex } from "../hash.ts";

/** The record of PATH in the cache's conflicts file, as saved. */
async function saved(cacheDir: string): Promise<ConflictRecord | undefined> {
  const text = await Deno.readTextFile(`${defaultStateDir(cacheDir)}/conflicts.json`)
    .catch(() => '{"conflicts":{}}');
  return JSON.parse(text).conflicts[PATH];
}

/**
 * A store that, once armed, runs the hook (once) at the first HEAD of PATH
 * after a read of PATH's bytes: the resolution's look at what the store
 * holds, after its look for an upload of its own.
 */
function hooked(
  store: InMemoryStore,
): { store: InMemoryStore; arm: (h: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  let read = false;
  const proxied = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "head" && prop !== "get" && prop !== "getStream") return value.bind(target);
      return async (...args: unknown[]) => {
        if (hook && args[0] === PATH && prop !== "head") read = true;
        const h = hook && read && args[0] === PATH && prop === "head" ? hook : undefined;
        if (h) hook = undefined;
        await h?.();
        return await value.apply(target, args);
      };
    },
  }) as InMemoryStore;
  return { store: proxied, arm: (h) => void (hook = h) };
}

Deno.test("resolve --theirs whose theirs is gone, while another process over the cache records a newer conflict of the path during its look at the store, is not done: the record stays open, naming your edit, its copy not released", async () => {
  const base = new InMemoryStore();
  const { store, arm } = hooked(base);
  const cacheDir = await Deno.makeTempDir();
  const a = await processOver(store, cacheDir, 1);
  const other = await processOver(base, cacheDir, 2);
  const b = await clone(base, "b");
  const c = await clone(base, "c");
  await committedEdits(a, b);
  await cutOffUpload(base, c);
  const upload = (await base.head(PATH))!.version;
  await put(a, PATH, "a's edit");
  assert.deepEqual((await a.pushChanged()).conflicts, [PATH]);
  // c's take-back: its upload deleted, the committed bytes put back unnamed.
  await base.delete(PATH, { ifVersion: upload });
  await base.put(PATH, new TextEncoder().encode("b's edit"), PutModes.create);
  const edit = await sha256Hex(new TextEncoder().encode("a's edit"));
  const newer: ConflictRecord = {
    path: PATH,
    mine: { location: PATH, hash: edit, size: 8 },
    theirs: { version: (await base.head(PATH))!.version, hash: "", size: 8 },
    foundBy: "pull",
    at: 7,
    reason: "recorded by the other process",
  };
  let fired = false;
  arm(async () => {
    fired = true;
    assert.equal(await saved(cacheDir), undefined, "the resolution cleared its record first");
    await other.state.conflicts.record([newer]);
  });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.ok(fired, "the resolution looked at what the store holds");
  assert.equal((await saved(cacheDir))?.reason, newer.reason, "the newer record is open");
  assert.equal(r.resolved, false, `reported done: ${JSON.stringify(r)}`);
  assert.deepEqual(r.leftBehind.conflicts, [PATH]);
  assert.equal(r.setAside.length, 1);
  const [moved] = r.setAside;
  assert.equal(await setAsideReleased(defaultStateDir(cacheDir), moved), false, "not released");
  for (const svc of [a, await processOver(new InMemoryStore(), cacheDir, 3)]) {
    await svc.state.conflicts.refresh();
    const open = svc.conflicts().find((x) => x.path === PATH);
    const held = setAsideCopies(open).find((x) => x.hash === edit);
    assert.equal(
      held?.location,
      moved,
      `your edit is named where set aside: ${JSON.stringify(open)}`,
    );
  }
  assert.equal(await Deno.readTextFile(`${cacheDir}/${moved}`), "a's edit");
});
