import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../../sync/ports.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { checkNothingUnnamed } from "./index_checks.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("I11: an object the index does not name is reported, unless it is its writer's pending change under an open conflict", async () => {
  const store = new InMemoryStore();
  const meta = { metadata: { [WRITER_METADATA]: "w1" } };
  await store.put("notes/named.md", bytes("a"), PutModes.overwrite, meta);
  await store.put("notes/stranded.md", bytes("b"), PutModes.overwrite, meta);
  await store.put("data/t/m/.lock", bytes("{}"), PutModes.overwrite);
  const entries = { "notes/named.md": { v: "v1", h: "", s: 1 } };
  const none = { writer: "w1", conflicts: new Set<string>() };
  const found = await checkNothingUnnamed(store, entries, [none]);
  assert.deepEqual(found.map((v) => [v.invariant, v.message.split(" (")[0]]), [
    ["I11", "the store holds notes/stranded.md"],
  ]);
  const open = { writer: "w1", conflicts: new Set(["notes/stranded.md"]) };
  assert.deepEqual(await checkNothingUnnamed(store, entries, [open]), []);
  const other = { writer: "w2", conflicts: new Set(["notes/stranded.md"]) };
  assert.equal((await checkNothingUnnamed(store, entries, [other])).length, 1);
});
