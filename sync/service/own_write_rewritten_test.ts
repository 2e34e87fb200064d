/**
 * `ownWriteChecker` says "gone" for another writer's object
 * over the entry's version: a peer's committed edit, then its next edit
 * uploaded with its commit cut off for good (its cache lost). This cache's
 * own edit, dirty here, must still meet the peer's committed edit as a
 * conflict somewhere, and the cache must not be stuck.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { clone, isIndexKey, put, read } from "./clone_kit.ts";

const PATH = "notes/n.md";

Deno.test("an entry gone under a dirty path: a peer's committed edit whose object a later uncommitted upload replaced: this cache's dirty edit meets it as a conflict", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "one");
  await a.pushChanged();
  await b.pullChanged();
  await put(b, PATH, "b's edit");
  await b.pushChanged(); // committed: the index names b's edit
  await put(b, PATH, "b's second edit");
  store.failNext("put", 50, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(b.pushChanged()); // uploaded, its commit cut off (b never comes back)
  store.heal();
  assert.equal(store.peekText(PATH), "b's second edit");
  // a edits its copy of "one" and syncs, twice.
  await put(a, PATH, "a's edit");
  const told: string[] = [];
  const errors: string[] = [];
  for (let i = 0; i < 2; i++) {
    const pulled = await a.pullChanged();
    told.push(...pulled.conflicts);
    const pushed = await a.pushChanged().catch((e) => {
      errors.push(`${e.code}: ${e.message}`);
      return undefined;
    });
    told.push(...(pushed?.conflicts ?? []));
  }
  told.push(...a.conflicts().map((c) => c.path));
  assert.ok(
    told.includes(PATH),
    `a's edit over "one" never met b's committed edit: store ${
      store.peekText(PATH)
    }, a has ${await read(a, PATH)}, errors ${JSON.stringify(errors)}, dirty ${
      JSON.stringify(a.state.dirtyPaths())
    }`,
  );
});

Deno.test("an entry gone under a dirty path (deleted here): a peer's committed edit whose object a later uncommitted upload replaced: this cache's dirty edit meets it as a conflict", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "one");
  await a.pushChanged();
  await b.pullChanged();
  await put(b, PATH, "b's edit");
  await b.pushChanged(); // committed: the index names b's edit
  await put(b, PATH, "b's second edit");
  store.failNext("put", 50, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(b.pushChanged()); // uploaded, its commit cut off (b never comes back)
  store.heal();
  assert.equal(store.peekText(PATH), "b's second edit");
  // a edits its copy of "one" and syncs, twice.
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  const told: string[] = [];
  const errors: string[] = [];
  for (let i = 0; i < 2; i++) {
    const pulled = await a.pullChanged();
    told.push(...pulled.conflicts);
    const pushed = await a.pushChanged().catch((e) => {
      errors.push(`${e.code}: ${e.message}`);
      return undefined;
    });
    told.push(...(pushed?.conflicts ?? []));
  }
  told.push(...a.conflicts().map((c) => c.path));
  assert.ok(
    told.includes(PATH),
    `a's edit over "one" never met b's committed edit: store ${
      store.peekText(PATH)
    }, a has ${await read(a, PATH)}, errors ${JSON.stringify(errors)}, dirty ${
      JSON.stringify(a.state.dirtyPaths())
    }`,
  );
});
