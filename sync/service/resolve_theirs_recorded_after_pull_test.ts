/**
 * `resolve --theirs` of a conflict whose theirs is a deletion, while another
 * process over the cache records a newer conflict of the path after the
 * resolution's pull, as it looks on the datastore for an upload of its own
 * to take back: the resolution never reports the path done while that
 * record is open, nor releases the copy of your edit it names.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { processOver, put } from "./clone_kit.ts";
import { type ConflictRecord, setAsideCopies } from "./conflicts.ts";
import { defaultStateDir } from "../transfer/cache.ts";
import { setAsideReleased } from "../transfer/cache_state.ts";
import { sha256Hex } from "../hash.ts";

const PATH = "notes/a.md";
const hashOf = (text: string) => sha256Hex(new TextEncoder().encode(text));

/** The record of PATH in the cache's conflicts file, as saved. */
async function saved(cacheDir: string): Promise<ConflictRecord | undefined> {
  const text = await Deno.readTextFile(`${defaultStateDir(cacheDir)}/conflicts.json`)
    .catch(() => '{"conflicts":{}}');
  return JSON.parse(text).conflicts[PATH];
}

/** A store that runs the armed hook (once) before the first read of PATH's bytes after `arm`. */
function hooked(
  store: InMemoryStore,
): { store: InMemoryStore; arm: (h: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  const proxied = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "getStream") return value.bind(target);
      return async (...args: unknown[]) => {
        const h = args[0] === PATH ? hook : undefined;
        if (h) hook = undefined;
        await h?.();
        return await value.apply(target, args);
      };
    },
  }) as InMemoryStore;
  return { store: proxied, arm: (h) => void (hook = h) };
}

Deno.test("resolve --theirs of a deletion, while another process over the cache records a newer conflict of the path after the pull, is not done: the record stays open, naming your edit, its copy not released", async () => {
  const base = new InMemoryStore();
  const { store, arm } = hooked(base);
  const peer = await processOver(base, await Deno.makeTempDir(), 9);
  await put(peer, PATH, "one");
  await peer.pushChanged();
  const cacheDir = await Deno.makeTempDir();
  const a = await processOver(store, cacheDir, 1);
  const b = await processOver(base, cacheDir, 2);
  await a.pullChanged();
  // A push of a file of its own gives the cache its writer id.
  await put(a, "notes/other.md", "other");
  await a.pushChanged();
  await put(a, PATH, "a's edit");
  await Deno.remove(`${peer.cacheDir}/${PATH}`);
  await peer.markDirty({ relPath: PATH });
  await peer.pushChanged();
  assert.deepEqual((await a.pullChanged()).conflicts, [PATH]);
  assert.equal(a.conflicts().find((c) => c.path === PATH)?.theirs, null);
  const edit = await hashOf("a's edit");
  const newer: ConflictRecord = {
    path: PATH,
    mine: { location: PATH, hash: edit, size: 8 },
    theirs: null,
    foundBy: "pull",
    at: 7,
    reason: "changed here, deleted on the datastore",
  };
  let fired = false;
  arm(async () => {
    fired = true;
    assert.equal(await saved(cacheDir), undefined, "the resolution cleared its record first");
    await b.state.conflicts.record([newer]);
  });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.ok(fired, "the resolution looked for an upload of its own after its pull");
  assert.equal((await saved(cacheDir))?.reason, newer.reason, "the newer record is open");
  assert.equal(r.resolved, false, `reported done: ${JSON.stringify(r)}`);
  assert.deepEqual(r.conflicts, [PATH]);
  assert.deepEqual(r.leftBehind.conflicts, [PATH]);
  assert.equal(r.setAside.length, 1);
  const [moved] = r.setAside;
  assert.equal(await setAsideReleased(defaultStateDir(cacheDir), moved), false, "not released");
  for (const svc of [a, await processOver(new InMemoryStore(), cacheDir, 3)]) {
    await svc.state.conflicts.refresh();
    const open = svc.conflicts().find((c) => c.path === PATH);
    const held = setAsideCopies(open).find((c) => c.hash === edit);
    assert.equal(
      held?.location,
      moved,
      `your edit is named where it was set aside: ${JSON.stringify(open)}`,
    );
  }
  assert.equal(await Deno.readTextFile(`${cacheDir}/${moved}`), "a's edit");
});
