import assert from "node:assert/strict";
import {
  ADOPT_TOO_SOON,
  ADOPT_VERSION_AFTER_MS,
  adoptVersionFile,
  sayAdopted,
} from "./version_adoption.ts";
import { mockPushContext, mockWriteContext, writeCacheFile } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { ADOPTED_UNCOMMITTED } from "../sync/service/conflicts.ts";

const D = "data/t/m/d/1";
const enc = (s: string) => new TextEncoder().encode(s);

/** A push of this cache's `raw` of version 1, over another writer's upload of it made now. */
async function met() {
  const m = await mockPushContext();
  const other = { metadata: { [WRITER_METADATA]: "gone" } };
  const theirs = await m.store.put(`${D}/raw`, enc("theirs"), PutModes.create, other);
  await writeCacheFile(m.cache.dir, `${D}/raw`, "mine");
  const ctx = mockWriteContext(m.ctx, `${D}/raw`, "mine", {
    metadata: { [WRITER_METADATA]: "me" },
  });
  return { m, ctx, theirs, other };
}

Deno.test("adoptVersionFile replaces another writer's upload, only over the object met, once it is old enough", async () => {
  const { m, ctx, theirs } = await met();
  await m.clock.advance(ADOPT_VERSION_AFTER_MS);
  const written = await adoptVersionFile(ctx, theirs, "gone", D, "me");
  assert.ok(written);
  assert.equal(
    (m.store as unknown as { peekText(k: string): string }).peekText(`${D}/raw`),
    "mine",
  );
  assert.deepEqual(m.warnings, []);
});

Deno.test("adoptVersionFile refuses while the upload is recent (adopt_too_soon), and changes nothing", async () => {
  const { m, ctx, theirs } = await met();
  await m.clock.advance(ADOPT_VERSION_AFTER_MS - 60_000);
  assert.equal(await adoptVersionFile(ctx, theirs, "gone", D, "me"), null);
  assert.equal(
    (m.store as unknown as { peekText(k: string): string }).peekText(`${D}/raw`),
    "theirs",
  );
  assert.deepEqual(m.warnings.map((w) => w.code), [ADOPT_TOO_SOON]);
  assert.match(m.warnings[0].message, /only 14 minute\(s\) old/);
});

Deno.test("adoptVersionFile judges the whole version: another file of it that writer uploaded recently makes it too soon", async () => {
  const { m, ctx, theirs, other } = await met();
  await m.clock.advance(ADOPT_VERSION_AFTER_MS);
  await m.store.put(`${D}/metadata.yaml`, enc("theirs"), PutModes.create, other);
  await writeCacheFile(m.cache.dir, `${D}/metadata.yaml`, "mine");
  assert.equal(await adoptVersionFile(ctx, theirs, "gone", D, "me"), null);
  assert.deepEqual(m.warnings.map((w) => w.code), [ADOPT_TOO_SOON]);
});

Deno.test("sayAdopted notes the replacement and warns adopted_uncommitted, naming the writer", async () => {
  const { m, ctx, theirs } = await met();
  sayAdopted(ctx, "create-only-writer", theirs, "gone");
  assert.deepEqual(m.warnings.map((w) => w.code), [ADOPTED_UNCOMMITTED]);
  assert.match(m.warnings[0].message, /writer gone/);
});
