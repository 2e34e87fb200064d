import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../../sync/ports.ts";
import { UnreachableError } from "../../sync/errors.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import type { ConflictRecord } from "../../sync/service/conflicts.ts";
import { OwnWrites } from "./own_conflicts.ts";

const enc = (t: string) => new TextEncoder().encode(t);
const conflict = (path: string, version: string): ConflictRecord =>
  ({ path, mine: null, theirs: { version, hash: "", size: 1 }, foundBy: "pull", at: 0 }) as never;

Deno.test("I29: a pull's conflict whose datastore copy is the clone's own write is a violation, told once", async () => {
  const inner = new InMemoryStore();
  const own = new OwnWrites();
  let who: number | undefined = 0;
  const store = own.watch(inner, () => who, (k) => inner.head(k));
  const meta = { metadata: { [WRITER_METADATA]: "c0-id" } };
  const mine = await store.put("n.md", enc("a"), PutModes.overwrite, meta);
  // Its answer lost: recorded all the same, read back from the store.
  inner.failNext("put", 1, () => new UnreachableError("cut off"), { afterEffect: true });
  await assert.rejects(store.put("m.md", enc("b"), PutModes.overwrite, meta));
  const lost = (await inner.head("m.md"))!.version;
  // A put without a writer id (an old client's) or of no clone is nobody's.
  await store.put("o.md", enc("c"), PutModes.overwrite);
  who = undefined;
  const harness = await store.put("p.md", enc("d"), PutModes.overwrite, meta);
  const v = own.check(0, [
    conflict("n.md", mine.version),
    conflict("m.md", lost),
    conflict("p.md", harness.version),
  ], 7);
  assert.deepEqual(v.map((x) => x.invariant), ["I29", "I29"]);
  assert.match(v[0].message, /n\.md .*c0's own write/);
  assert.deepEqual(own.check(0, [conflict("n.md", mine.version)], 8), [], "told once");
  assert.deepEqual(own.check(1, [conflict("q.md", mine.version)], 8), [], "another clone's");
});

Deno.test("I29: a clone whose cache was replaced by a copy has no own writes from before", async () => {
  const inner = new InMemoryStore();
  const own = new OwnWrites();
  const store = own.watch(inner, () => 1, (k) => inner.head(k));
  const w = await store.put("n.md", enc("a"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "c1-id" },
  });
  own.forget(1);
  assert.deepEqual(own.check(1, [conflict("n.md", w.version)], 3), []);
});

Deno.test("I29: a conflict at a path whose latest synced record a damaged manifest log line held is spared, at that path alone", async () => {
  const inner = new InMemoryStore();
  const own = new OwnWrites();
  const store = own.watch(inner, () => 2, (k) => inner.head(k));
  const meta = { metadata: { [WRITER_METADATA]: "c2-id" } };
  const n = await store.put("n.md", enc("a"), PutModes.overwrite, meta);
  const m = await store.put("m.md", enc("b"), PutModes.overwrite, meta);
  const v = own.check(
    2,
    [conflict("n.md", n.version), conflict("m.md", m.version)],
    5,
    (path) => path === "n.md",
  );
  assert.deepEqual(v.map((x) => x.invariant), ["I29"]);
  assert.match(v[0].message, /m\.md/);
});
