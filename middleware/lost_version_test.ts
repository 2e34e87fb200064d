import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
import { sha256Hex } from "../sync/hash.ts";
import { lostVersion, setAsideVersion, versionDir } from "./lost_version.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const DIR = "data/t/m/out/1";

Deno.test("a lost version is set aside once; this cache's unnamed objects of it go, named ones and a peer's stay", async () => {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  for (const f of ["raw", "metadata.yaml", "extra", "peer"]) {
    await m.cache.write(`${DIR}/${f}`, bytes(f));
  }
  const mine = { metadata: { [WRITER_METADATA]: "me" } };
  await store.put(`${DIR}/raw`, bytes("theirs"), PutModes.overwrite); // the refused one
  await store.put(`${DIR}/metadata.yaml`, bytes("m"), PutModes.overwrite, mine);
  const named = await store.put(`${DIR}/extra`, bytes("e"), PutModes.overwrite, mine);
  await store.put(`${DIR}/peer`, bytes("p"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "peer" },
  });
  await updateIndex(store, {
    set: { [`${DIR}/extra`]: { v: named.version, h: await sha256Hex(bytes("e")), s: 1 } },
    remove: [],
  }, retry);

  assert.equal(versionDir(`${DIR}/raw`), DIR);
  const aside = await setAsideVersion(m.ctx, DIR, `${DIR}/raw`, false, "me");
  assert.equal(aside.length, 4, "every local file set aside");
  assert.equal(store.peekText(`${DIR}/metadata.yaml`), undefined, "own and unnamed: deleted");
  assert.equal(store.peekText(`${DIR}/extra`), "e", "own but named: kept");
  assert.equal(store.peekText(`${DIR}/peer`), "p", "a peer's: kept");
  assert.equal(store.peekText(`${DIR}/raw`), "theirs");
  assert.equal(lostVersion(m.ctx, DIR)?.own, false);
  assert.deepEqual(
    await setAsideVersion(m.ctx, DIR, `${DIR}/peer`, false, "me"),
    [],
    "once per directory",
  );
});
