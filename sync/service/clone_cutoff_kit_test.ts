import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, put, quick, v2Store } from "./clone_kit.ts";
import { updateAnswerLost, uploadCommitCutOff } from "./clone_cutoff_kit.ts";

Deno.test("clone cut-off kit: an upload whose commit is cut off stands, named by no index", async () => {
  const { store, uploaded } = await uploadCommitCutOff("notes/n.txt", "one");
  assert.equal((await store.head("notes/n.txt"))?.version, uploaded);
  assert.equal((await readIndex(store, quick.retry))?.entries["notes/n.txt"], undefined);
});

Deno.test("clone cut-off kit: an update whose answer is lost is named by the index", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  await put(a, "n.txt", "one");
  await a.pushChanged();
  const v = await updateAnswerLost(store, a, "n.txt", "two");
  assert.equal((await store.head("n.txt"))?.version, v);
  assert.equal((await readIndex(store, quick.retry))?.entries["n.txt"]?.v, v);
});
