/**
 * An entry whose object is
 * gone, over a path dirty here, records no conflict at the pull; a peer's
 * change the entry names must still meet this cache's change somewhere.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, isIndexKey, put, quick, read } from "./clone_kit.ts";

const PATH = "notes/n.md";

Deno.test("gone rule: a peer's edit, then its deletion whose commit is cut off: this cache's edit over the first version meets them as a conflict", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "one");
  await a.pushChanged();
  await b.pullChanged();
  await put(b, PATH, "b's edit");
  await b.pushChanged();
  const v2 = (await readIndex(store, quick.retry))?.entries[PATH]?.v;
  // b deletes it: the delete lands, its commit is cut off.
  await Deno.remove(`${b.cacheDir}/${PATH}`);
  await b.markDirty({ relPath: PATH });
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(b.pushChanged());
  assert.equal(store.peekText(PATH), undefined);
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH]?.v, v2);
  // a edits its copy of "one" (never saw b's edit) and syncs.
  await put(a, PATH, "a's edit");
  const pulled = await a.pullChanged();
  const pushed = await a.pushChanged().catch((e) => e);
  // b finishes its deletion.
  const bpushed = await b.pushChanged().catch((e) => e);
  const told = [
    ...pulled.conflicts,
    ...(pushed?.conflicts ?? []),
    ...(bpushed?.conflicts ?? []),
    ...a.conflicts().map((c) => c.path),
    ...b.conflicts().map((c) => c.path),
  ];
  assert.ok(
    told.includes(PATH),
    `a's edit over "one" met b's edit and deletion silently: store now ${
      store.peekText(PATH)
    }, a has ${await read(a, PATH)}, b has ${await read(b, PATH)}`,
  );
});
