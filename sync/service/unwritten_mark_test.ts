/**
 * The tool marks a path dirty before it writes it, and the write may never
 * come. Such a mark, on a path this cache never synced with nothing here, is
 * no deletion: a pull takes a peer's new file there, never a conflict that
 * `--mine` would settle by deleting it.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";

const P = "definitions-evaluated/shell/cmd/new.yaml";

Deno.test("a mark whose write never came is no deletion here: the pull takes the peer's new file", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await b.markDirty({ relPath: P }); // the write never came
  await put(a, P, "a's new file");
  await a.pushChanged();
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, []);
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, P), "a's new file");
  await b.pushChanged();
  assert.equal(store.peekText(P), "a's new file", "nothing deleted");
});

Deno.test("a mark on a never-synced path with a file here is still a local change the pull keeps", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(b, P, "b's own file"); // written and marked, not pushed
  await put(a, P, "a's new file");
  await a.pushChanged();
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.conflicts, [P]);
  assert.equal(await read(b, P), "b's own file");
});
