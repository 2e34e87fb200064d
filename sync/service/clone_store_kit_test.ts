import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PreconditionFailedError } from "../errors.ts";
import { checkedDeleteStore, copyTree } from "./clone_store_kit.ts";

Deno.test("clone store kit: a checked delete compares the version, then runs the armed hook once", async () => {
  const inner = new InMemoryStore();
  const info = await inner.put("k", new TextEncoder().encode("x"), { kind: "create" });
  const { store, arm } = checkedDeleteStore(inner);
  await assert.rejects(store.delete("k", { ifVersion: "other" }), PreconditionFailedError);
  let ran = 0;
  arm(() => Promise.resolve(void ran++));
  await store.delete("k", { ifVersion: info.version });
  assert.equal(ran, 1);
  assert.equal(await inner.head("k"), null);
});

Deno.test("clone store kit: copyTree copies files and directories", async () => {
  const from = await Deno.makeTempDir({ prefix: "sluice-copy-from-" });
  const to = await Deno.makeTempDir({ prefix: "sluice-copy-to-" });
  await Deno.mkdir(`${from}/d/e`, { recursive: true });
  await Deno.writeTextFile(`${from}/a.txt`, "a");
  await Deno.writeTextFile(`${from}/d/e/b.txt`, "b");
  await copyTree(from, `${to}/copy`);
  assert.equal(await Deno.readTextFile(`${to}/copy/a.txt`), "a");
  assert.equal(await Deno.readTextFile(`${to}/copy/d/e/b.txt`), "b");
});
