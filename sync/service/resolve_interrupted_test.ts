/**
 * A resolution whose push (`--mine`) or pull (`--theirs`) fails part way (the
 * datastore unreachable) leaves the conflict open: `status` still lists it,
 * a plain push still leaves the path out, and the same resolution, run
 * again, completes it. Nothing of either side is lost meanwhile.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { clone, put, read } from "./clone_kit.ts";

const PATH = "notes/m.txt";

/** `b` holds a conflict at PATH: both edited it, `a` pushed first. */
async function conflicted() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "base");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, PATH, "a's edit");
  await a.pushChanged();
  await put(b, PATH, "b's edit");
  const met = await b.pushChanged();
  assert.deepEqual(met.conflicts, [PATH]);
  return { store, b };
}

Deno.test("resolve --mine whose push fails keeps the conflict open; run again, it publishes", async () => {
  const { store, b } = await conflicted();
  store.failNext("put", 1, () => new UnreachableError("injected outage"));
  await assert.rejects(b.resolveConflict(PATH, "mine"), UnreachableError);
  assert.deepEqual(b.conflicts().map((c) => c.path), [PATH], "still open");
  assert.equal(store.peekText(PATH), "a's edit");
  assert.equal(await read(b, PATH), "b's edit");
  const plain = await b.pushChanged();
  assert.deepEqual(plain.conflicts, [PATH], "a plain push leaves it out, as before");
  assert.equal(store.peekText(PATH), "a's edit");
  const again = await b.resolveConflict(PATH, "mine");
  assert.equal(again.resolved, true);
  assert.equal(store.peekText(PATH), "b's edit");
  assert.deepEqual(b.conflicts(), []);
});

Deno.test("resolve --theirs whose pull fails keeps the conflict open, naming the copy it set aside; run again, it takes theirs", async () => {
  const { store, b } = await conflicted();
  store.failNext("get", 1, () => new UnreachableError("injected outage"), {
    match: (k) => k === PATH,
  });
  await assert.rejects(b.resolveConflict(PATH, "theirs"), UnreachableError);
  const rec = b.conflicts().find((c) => c.path === PATH);
  assert.ok(rec, "still open");
  const kept = [rec.mine?.location, ...(rec.keptAside ?? []).map((k) => k.location)]
    .filter((l): l is string => !!l && l !== PATH);
  assert.equal(kept.length, 1, JSON.stringify(rec));
  assert.equal(await read(b, kept[0]), "b's edit", "the copy set aside is named by the conflict");
  const again = await b.resolveConflict(PATH, "theirs");
  assert.equal(again.resolved, true);
  assert.equal(await read(b, PATH), "a's edit");
  assert.deepEqual(b.conflicts(), []);
  assert.equal(await read(b, kept[0]), "b's edit", "kept aside after the resolution too");
});
