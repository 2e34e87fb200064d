import assert from "node:assert/strict";
import { CONFIG_CAS_WRITER, settleRefused } from "./config_cas_met.ts";
import { WRITER_METADATA } from "./own_writes.ts";
import { PutModes } from "../sync/ports.ts";
import {
  type InMemoryStore,
  mockPushContext,
  mockWriteContext,
  planEntry,
} from "../packages/testing/mod.ts";

const FILE = "config/vaults/v1.yaml";

async function refused(body: string, seeded: string, metadata?: Record<string, string>) {
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  store.seed(FILE, seeded, metadata);
  const ctx = mockWriteContext(m.ctx, FILE, body, {
    entry: planEntry(FILE, { class: "config", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  return { m, store, ctx };
}

Deno.test("settleRefused: the same bytes on the store count as written", async () => {
  const { ctx } = await refused("same", "same");
  await settleRefused(ctx, "me");
  assert.equal(ctx.outcome, "identical");
  assert.ok(ctx.result);
  assert.equal(ctx.entry.action === "skip", false);
});

Deno.test("settleRefused: this cache's own uncommitted write is replaced, not taken for a peer's change", async () => {
  const { store, ctx } = await refused("mine", "older attempt", { [WRITER_METADATA]: "me" });
  await settleRefused(ctx, "me");
  assert.equal(ctx.outcome, "written");
  assert.equal(new TextDecoder().decode((await store.get(FILE))?.body), "mine");
});

Deno.test("settleRefused: a peer's committed change is a recorded conflict, nothing written over it", async () => {
  const { m, store, ctx } = await refused("mine", "peer");
  await settleRefused(ctx, "me");
  assert.equal(ctx.entry.action, "skip");
  assert.ok(ctx.entry.handledBy.includes(CONFIG_CAS_WRITER));
  assert.equal(new TextDecoder().decode((await store.get(FILE))?.body), "peer");
  assert.equal(m.warnings[0]?.code, "config_changed_remotely");
});
