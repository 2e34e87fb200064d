/**
 * `namedWhereMoved` (see `resolve_theirs_named.ts`): the record of the path
 * another process over the cache saved while a `resolve --theirs` ran is
 * named where the resolution moved your edit, only as that process left it:
 * one it resolved or replaced by the time the name is saved stays so, never
 * written back or over.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { processOver, put } from "./clone_kit.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { defaultStateDir } from "../transfer/cache.ts";
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

/** A store whose first call after `arm` runs the armed hook first (once). */
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

for (const how of ["resolved", "replaced"] as const) {
  Deno.test(`resolve --theirs naming your edit where it moved in the record another process saved during its pull leaves that record as the other process ${how} it meanwhile`, async () => {
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
    const three = (await base.head(PATH))!.version;
    const newer: ConflictRecord = {
      path: PATH,
      mine: { location: PATH, hash: await hashOf("a's edit"), size: 8 },
      theirs: { version: three, hash: await hashOf("three"), size: 5 },
      foundBy: "pull",
      at: 7,
      reason: "recorded by b",
    };
    const third: ConflictRecord = { ...newer, at: 9, reason: "recorded by b again" };
    // b records its conflict as a's pull begins; then, as a saves that
    // record naming your edit where it moved, b resolves or replaces it.
    arm(() => b.state.conflicts.record([newer]));
    const conflicts = a.state.conflicts;
    const record = conflicts.record.bind(conflicts);
    let fired = false;
    conflicts.record = async (records) => {
      if (!fired && records[0]?.reason === newer.reason && records[0].mine?.location !== PATH) {
        fired = true;
        await b.state.conflicts.takeIn();
        if (how === "resolved") await b.state.conflicts.clear([PATH]);
        else await b.state.conflicts.record([third]);
      }
      return await record(records);
    };
    await a.resolveConflict(PATH, "theirs");
    assert.ok(fired, "a named the record where your edit moved");
    const now = await saved(cacheDir);
    if (how === "resolved") {
      assert.equal(now, undefined, `the resolved conflict came back: ${JSON.stringify(now)}`);
    } else {
      assert.equal(
        now?.reason,
        third.reason,
        `b's newer record written over: ${JSON.stringify(now)}`,
      );
      assert.equal(now?.at, third.at);
      assert.notEqual(now?.mine?.location, PATH, "your edit is named where it moved");
    }
  });
}
