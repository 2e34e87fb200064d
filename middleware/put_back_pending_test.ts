import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext, mockWriteContext } from "../packages/testing/mod.ts";
import { SIGHTINGS_FILE } from "../sync/service/dangling_entries.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
import { sha256Hex } from "../sync/hash.ts";
import { putBackPending } from "./put_back_pending.ts";

const RAW = "data/t/m/out/1/raw";
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("putBackPending: only a key seen naming nothing whose entry names other bytes holds a create back", async () => {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  // The index names an old client's bytes at version 1; its object is gone.
  await updateIndex(store, {
    set: { [RAW]: { v: "v9", h: await sha256Hex(bytes("theirs")), s: 6 } },
    remove: [],
  }, retry);
  const mine = mockWriteContext(m.ctx, RAW, "mine");
  assert.equal(await putBackPending(mine), false, "not seen naming nothing: the create goes on");

  const seen = await mockPushContext({ store, cacheDir: m.cache.dir });
  await seen.cache.writeState(SIGHTINGS_FILE, { [RAW]: { v: "v9", at: 0 } });
  assert.equal(await putBackPending(mockWriteContext(seen.ctx, RAW, "mine")), true);
  assert.equal(
    await putBackPending(mockWriteContext(seen.ctx, RAW, "theirs")),
    false,
    "the same bytes: nothing to keep out",
  );
  assert.equal(
    await putBackPending(mockWriteContext(seen.ctx, "data/t/m/out/2/raw", "mine")),
    false,
    "another key",
  );
});
