import assert from "node:assert/strict";
import { CONFIG_CAS_WRITER, settleRefused } from "./config_cas_met.ts";
import { WRITER_METADATA } from "./own_writes.ts";
import { PutModes } from "../sync/ports.ts";
import { PUSH_WAITING_UNCOMMITTED } from "./cas_outcomes.ts";
import { sha256Hex } from "../sync/hash.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
import {
  type InMemoryStore,
  mockPushContext,
  mockWriteContext,
  peerPush,
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

/**
 * The index names `committed` at another version than the write's base
 * (`v0`), and the store holds a peer's upload over it that no index names.
 */
async function peerUploadOver(committed: string, body: string) {
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  await peerPush(store, { [FILE]: committed });
  store.seed(FILE, "peer's upload", { [WRITER_METADATA]: "peer" });
  const ctx = mockWriteContext(m.ctx, FILE, body, {
    entry: planEntry(FILE, { class: "config", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  return { m, store, ctx };
}

Deno.test("settleRefused: a peer's upload no index names, over an entry naming these very bytes, is waited for, not a conflict", async () => {
  // This cache's own write, committed with its answer lost, then written over by a peer.
  const { m, store, ctx } = await peerUploadOver("mine", "mine");
  await settleRefused(ctx, "me");
  assert.equal(ctx.entry.action, "skip");
  assert.equal(ctx.entry.conflict, undefined);
  assert.equal(m.warnings[0]?.code, PUSH_WAITING_UNCOMMITTED);
  assert.equal(store.peekText(FILE), "peer's upload");
});

Deno.test("settleRefused: a peer's upload no index names, over an entry naming other bytes than these, is a conflict", async () => {
  // A committed change this copy is not based on, whoever made it.
  const { m, store, ctx } = await peerUploadOver("committed", "mine");
  await settleRefused(ctx, "me");
  assert.equal(ctx.entry.action, "skip");
  assert.ok(ctx.entry.conflict);
  assert.equal(m.warnings[0]?.code, "config_changed_remotely");
  assert.equal(store.peekText(FILE), "peer's upload");
});

/**
 * This cache's own upload of `upload` at `FILE`, which the index names
 * (a peer's create met those bytes and committed them); the write puts back
 * `body` over the synced `v0` (whose bytes are `synced`).
 */
async function ownUploadNamed(upload: string, body: string, synced: string) {
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  const held = await store.put(FILE, new TextEncoder().encode(upload), PutModes.create, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  const h = await sha256Hex(new TextEncoder().encode(upload));
  const set = { [FILE]: { v: held.version, h, s: upload.length } };
  await updateIndex(store, { set, remove: [] }, { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 });
  const syncedHash = await sha256Hex(new TextEncoder().encode(synced));
  const ctx = mockWriteContext(m.ctx, FILE, body, {
    entry: planEntry(FILE, { class: "config", syncedVersion: "v0", syncedHash }),
    mode: PutModes.update("v0"),
  });
  return { m, store, ctx };
}

Deno.test("settleRefused: the copy synced here, put back over this cache's own upload that the index names, is a conflict, nothing written over it", async () => {
  const { store, ctx } = await ownUploadNamed("mine, committed", "synced", "synced");
  await settleRefused(ctx, "me");
  assert.equal(ctx.entry.action, "skip");
  assert.ok(ctx.entry.conflict);
  assert.equal(store.peekText(FILE), "mine, committed");
});

Deno.test("settleRefused: a change made here over this cache's own upload that the index names replaces it (its own commit, its answer lost)", async () => {
  const { store, ctx } = await ownUploadNamed("mine, committed", "edited here", "synced");
  await settleRefused(ctx, "me");
  assert.equal(ctx.outcome, "written");
  assert.equal(store.peekText(FILE), "edited here");
});
