/**
 * dropUploadOverWithdrawn: which object a take-back's delete meeting
 * another object removes (another Sluice writer's upload no index names)
 * and which it leaves (nothing, this cache's own, an object with no writer
 * id, one an index names).
 */
import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext, peerPush } from "../../packages/testing/mod.ts";
import { type ObjectInfo, PutModes } from "../ports.ts";
import type { PushContext } from "../context.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { dropUploadOverWithdrawn } from "./withdrawn_under_upload.ts";

const PATH = "notes/a.md";
const bytes = (s: string) => new TextEncoder().encode(s);

/**
 * Runs `body` over a store and a push context on it, with `upload`: an
 * object written at PATH by the writer named (none: no writer id); then
 * removes the context's cache.
 */
async function withSetup(
  body: (s: {
    store: InMemoryStore;
    ctx: PushContext;
    upload: (writer: string | undefined, text?: string) => Promise<ObjectInfo>;
  }) => Promise<void>,
) {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  const upload = (writer: string | undefined, text = "edit") =>
    store.put(
      PATH,
      bytes(text),
      PutModes.overwrite,
      writer ? { metadata: { [WRITER_METADATA]: writer } } : {},
    );
  try {
    await body({ store, ctx: m.ctx, upload });
  } finally {
    await Deno.remove(m.cache.dir, { recursive: true });
  }
}

Deno.test("withdrawn under upload: another Sluice writer's upload that no index names is deleted (nothing left of the window)", async () => {
  await withSetup(async (s) => {
    await s.upload("peer");
    assert.deepEqual(await dropUploadOverWithdrawn(s.ctx, PATH, "me"), {
      dropped: true,
      left: true,
    });
    assert.equal(await s.store.head(PATH), null);
  });
});

Deno.test("withdrawn under upload: nothing there (nothing left of the window), this cache's own upload, or an object with no writer id is left as it is", async () => {
  await withSetup(async (s) => {
    assert.deepEqual(await dropUploadOverWithdrawn(s.ctx, PATH, "me"), {
      dropped: false,
      left: true,
    });
    await s.upload("me");
    assert.deepEqual(await dropUploadOverWithdrawn(s.ctx, PATH, "me"), { dropped: false });
    assert.notEqual(await s.store.head(PATH), null);
    await s.upload(undefined);
    assert.deepEqual(await dropUploadOverWithdrawn(s.ctx, PATH, "me"), { dropped: false });
    assert.notEqual(await s.store.head(PATH), null);
  });
});

Deno.test("withdrawn under upload: an upload the index names is left, and that entry told", async () => {
  await withSetup(async (s) => {
    await peerPush(s.store, { [PATH]: "committed" });
    const put = await s.upload("peer");
    const r = await dropUploadOverWithdrawn(s.ctx, PATH, "me");
    assert.equal(r.dropped, false);
    assert.ok(r.named, "the entry the index names is told");
    assert.equal((await s.store.head(PATH))?.version, put.version);
  });
});
