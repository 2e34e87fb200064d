import assert from "node:assert/strict";
import {
  CHANGED_REMOTELY,
  CONFIG_CHANGED_REMOTELY,
  PUSH_WAITING_UNCOMMITTED,
  recordConflict,
  waitFor,
} from "./cas_outcomes.ts";
import { mockPushContext, mockWriteContext, planEntry } from "../packages/testing/mod.ts";
import { UNCOMMITTED_HOLDS } from "../sync/service/push_result.ts";
import { sha256Hex } from "../sync/hash.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("recordConflict keeps the local copy dirty, records theirs (or a deletion there) and says which kind of file", async () => {
  for (
    const [path, cls, code] of [
      ["notes/a.md", "other", CHANGED_REMOTELY],
      ["config/x.yaml", "config", CONFIG_CHANGED_REMOTELY],
    ] as const
  ) {
    const m = await mockPushContext();
    const ctx = mockWriteContext(m.ctx, path, "mine", { entry: planEntry(path, { class: cls }) });
    const theirs = { key: path, version: "v9", size: 6, body: enc("theirs"), lastModified: 0 };
    await recordConflict(ctx, theirs, "gate");
    assert.equal(ctx.entry.action, "skip");
    assert.equal(ctx.entry.keepDirty, true);
    assert.deepEqual(ctx.entry.conflict, {
      theirs: { version: "v9", hash: await sha256Hex(enc("theirs")), size: 6 },
    });
    assert.ok(m.state.dirtyPaths().includes(path));
    assert.deepEqual(m.warnings.map((w) => w.code), [code]);
  }
  const m = await mockPushContext();
  const gone = mockWriteContext(m.ctx, "notes/b.md", "mine");
  await recordConflict(gone, null, "gate");
  assert.deepEqual(gone.entry.conflict, { theirs: null });
  assert.match(m.warnings[0].message, /deleted it/);
});

Deno.test("waitFor leaves the write for a later push, dirty, naming the adoption or why there was none", async () => {
  const m = await mockPushContext();
  const ctx = mockWriteContext(m.ctx, "notes/a.md", "mine");
  await waitFor(
    ctx,
    { key: "notes/a.md", version: "v3", size: 1, lastModified: 0 },
    "gate",
    "too recent",
  );
  assert.equal(ctx.entry.action, "skip");
  assert.equal(ctx.entry.reason, UNCOMMITTED_HOLDS);
  assert.ok(m.state.dirtyPaths().includes("notes/a.md"));
  assert.deepEqual(m.warnings.map((w) => w.code), [PUSH_WAITING_UNCOMMITTED]);
  assert.match(m.warnings[0].message, /version v3.*it was not adopted: too recent/);
});

Deno.test("recordConflict with a copy unchanged since its sync, deleted there, says the copy is unchanged, what deleted it, and how to accept or undo the deletion", async () => {
  for (const republish of [false, true]) {
    const m = await mockPushContext();
    const path = "config/x.yaml";
    const ctx = mockWriteContext(m.ctx, path, "as synced", {
      entry: planEntry(path, { class: "config" }),
    });
    m.state.setSynced(path, {
      hash: await sha256Hex(enc("as synced")),
      version: "v1",
      size: 9,
      ...(republish ? { republish } : {}),
    });
    await recordConflict(ctx, null, "gate");
    assert.deepEqual(ctx.entry.conflict, { theirs: null });
    const reason = ctx.entry.reason ?? "";
    assert.doesNotMatch(reason, /not based on/);
    assert.match(reason, /unchanged since this cache synced it/);
    const message = m.warnings[0].message;
    assert.doesNotMatch(message, /not based on|would have overwritten/);
    assert.match(message, /copy here is unchanged/);
    assert.match(message, /its writer taking back its own write/);
    assert.match(message, /--theirs` accepts the deletion/);
    assert.match(message, /--mine` publishes it again/);
    if (republish) assert.match(message, /kept it to name again/);
    else assert.doesNotMatch(message, /kept it to name again/);
  }
});
