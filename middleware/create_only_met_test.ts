import assert from "node:assert/strict";
import {
  type InMemoryStore,
  mockPushContext,
  mockWriteContext,
  planEntry,
} from "../packages/testing/mod.ts";
import { AlreadyExistsError } from "../sync/errors.ts";
import { emptyJournal, writeErasureJournal } from "./erasure_journal.ts";
import { versionDir } from "./lost_version.ts";
import { WRITER_METADATA, writerId } from "./own_writes.ts";
import { versionWaits } from "./waiting_version.ts";
import {
  CONTENT_HASH_METADATA,
  erasurePending,
  meetObject,
  remoteHash,
  WRITE_ID_METADATA,
} from "./create_only_met.ts";

const RAW = "data/t/m/d/2/raw";

async function unit(body = "local") {
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  const ctx = mockWriteContext(m.ctx, RAW, body, {
    entry: planEntry(RAW, { class: "data-version" }),
  });
  return { m, store, ctx };
}

Deno.test("remoteHash: the tagged hash, without reading the object", async () => {
  const { store, ctx } = await unit();
  store.seed(RAW, "theirs", { [CONTENT_HASH_METADATA]: "ab".repeat(32) });
  const head = await store.head(RAW);
  assert.ok(head);
  store.resetLog();
  const remote = await remoteHash(ctx, head);
  assert.equal(remote.hash, "ab".repeat(32));
  assert.equal(remote.info, head);
  assert.deepEqual(store.log.map((r) => r.op), []);
});

Deno.test("remoteHash: an untagged object is read and hashed", async () => {
  const { store, ctx } = await unit("same");
  const seeded = store.seed(RAW, "same");
  const head = await store.head(RAW);
  assert.ok(head);
  store.resetLog();
  const remote = await remoteHash(ctx, head);
  assert.equal(remote.hash, ctx.hash);
  assert.equal(remote.info.version, seeded.version);
  assert.deepEqual(store.log.map((r) => r.op), ["get"]);
});

Deno.test("erasurePending: only the very version the journal still has to delete", async () => {
  const { m, store, ctx } = await unit();
  const seeded = store.seed(RAW, "refused");
  assert.equal(await erasurePending(ctx, seeded.version), false);
  await writeErasureJournal(m.cache, {
    ...emptyJournal(),
    uploads: [{ path: RAW, version: seeded.version }],
  });
  assert.equal(await erasurePending(ctx, seeded.version), true);
  assert.equal(await erasurePending(ctx, "other"), false);
});

Deno.test("meetObject: this write's earlier attempt landed: written, nothing more put", async () => {
  const { store, ctx } = await unit();
  const writer = await writerId(ctx);
  const seeded = store.seed(RAW, "local", {
    [WRITE_ID_METADATA]: "id1",
    [WRITER_METADATA]: writer,
  });
  store.resetLog();
  await meetObject(ctx, {
    exists: new AlreadyExistsError(RAW),
    dir: versionDir(RAW),
    writer,
    writeId: "id1",
    hash: ctx.hash,
    unlessLost: () => Promise.resolve(),
  });
  assert.equal(ctx.outcome, "written");
  assert.equal(ctx.result?.version, seeded.version);
  assert.deepEqual(store.log.map((r) => r.op), ["head"]);
});

Deno.test("meetObject: this cache's own upload, its erasure pending, makes the version wait", async () => {
  const { m, store, ctx } = await unit("mine");
  const writer = await writerId(ctx);
  const seeded = store.seed(RAW, "refused", {
    [CONTENT_HASH_METADATA]: "0".repeat(64),
    [WRITER_METADATA]: writer,
  });
  await writeErasureJournal(m.cache, {
    ...emptyJournal(),
    uploads: [{ path: RAW, version: seeded.version }],
  });
  const dir = versionDir(RAW);
  await meetObject(ctx, {
    exists: new AlreadyExistsError(RAW),
    dir,
    writer,
    writeId: "id1",
    hash: ctx.hash,
    unlessLost: () => Promise.resolve(),
  });
  assert.ok(versionWaits(m.ctx, dir));
  assert.equal(store.peekText(RAW), "refused");
});
