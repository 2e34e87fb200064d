import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { isLayoutInternal, isLocalOnlyPath } from "./bucket_layout.ts";
import {
  clearWithdrawal,
  clearWithdrawalOf,
  noteWithdrawal,
  withdrawalKey,
  WITHDRAWN_DIR,
  withdrawnVersion,
} from "./withdrawal_note.ts";

const c = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

Deno.test("a take-back's note names the version taken back at its path, the last one written over an earlier one", async () => {
  const store = new InMemoryStore();
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), undefined);
  await noteWithdrawal(store, "notes/a.md", "v1", c);
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), "v1");
  assert.equal(await withdrawnVersion(store, "notes/b.md", c), undefined);
  await noteWithdrawal(store, "notes/a.md", "v2", c);
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), "v2");
});

Deno.test("a note lives under _control/, which the layout's other clients leave out of their listings and Sluice never pulls, indexes or pushes", async () => {
  const key = await withdrawalKey("data/t/m/d/1/raw");
  assert.ok(key.startsWith(`${WITHDRAWN_DIR}/`) && key.startsWith("_control/"));
  assert.ok(isLayoutInternal(key));
  assert.ok(isLocalOnlyPath(key));
  assert.notEqual(key, await withdrawalKey("data/t/m/d/2/raw"));
});

Deno.test("a note that cannot be read, or one naming another path, tells nothing", async () => {
  const store = new InMemoryStore();
  const key = await withdrawalKey("notes/a.md");
  const put = (text: string) =>
    store.put(key, new TextEncoder().encode(text), { kind: "overwrite" });
  await put("not json");
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), undefined);
  await put(JSON.stringify({ format: 2, path: "notes/a.md", v: "v1" }));
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), undefined);
  await put(JSON.stringify({ format: 1, path: "notes/other.md", v: "v1" }));
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), undefined);
  await put(JSON.stringify({ format: 1, path: "notes/a.md", v: "v1" }));
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), "v1");
});

Deno.test("a take-back clears its own note once done, never a later take-back's", async () => {
  for (const versionFromBytes of [false, true]) {
    const store = new InMemoryStore({ versionFromBytes });
    const first = await noteWithdrawal(store, "notes/a.md", "v1", c);
    const second = await noteWithdrawal(store, "notes/a.md", "v1", c);
    assert.notEqual(first, second, "two notes of the same version are told apart");
    await clearWithdrawal(store, "notes/a.md", first, c);
    assert.equal(await withdrawnVersion(store, "notes/a.md", c), "v1");
    await clearWithdrawal(store, "notes/a.md", second, c);
    assert.equal(await withdrawnVersion(store, "notes/a.md", c), undefined);
    await clearWithdrawal(store, "notes/a.md", second, c); // nothing left: no error
  }
});

Deno.test("a note left by a cut-off take-back is cleared by the version it names, and only by that one", async () => {
  const store = new InMemoryStore();
  await noteWithdrawal(store, "notes/a.md", "v1", c);
  await clearWithdrawalOf(store, "notes/a.md", "v2", c);
  assert.equal(
    await withdrawnVersion(store, "notes/a.md", c),
    "v1",
    "another version's note stays",
  );
  await clearWithdrawalOf(store, "notes/b.md", "v1", c);
  assert.equal(await withdrawnVersion(store, "notes/a.md", c), "v1");
  await clearWithdrawalOf(store, "notes/a.md", "v1", c);
  assert.equal(store.peek(await withdrawalKey("notes/a.md")), undefined);
  // Nothing there: nothing to do.
  await clearWithdrawalOf(store, "notes/a.md", "v1", c);
});
