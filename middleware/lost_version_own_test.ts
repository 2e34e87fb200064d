import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
import { sha256Hex } from "../sync/hash.ts";
import { dropOwn, dropOwnSiblings } from "./lost_version_own.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const DIR = "data/t/m/out/1";

Deno.test("own uploads of a lost version: this cache's unnamed ones go; one the index names, a peer's and an absent one stay as they are", async () => {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  const mine = { metadata: { [WRITER_METADATA]: "me" } };
  await store.put(`${DIR}/metadata.yaml`, bytes("m"), PutModes.overwrite, mine);
  const named = await store.put(`${DIR}/extra`, bytes("e"), PutModes.overwrite, mine);
  await store.put(`${DIR}/peer`, bytes("p"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "peer" },
  });
  await updateIndex(store, {
    set: { [`${DIR}/extra`]: { v: named.version, h: await sha256Hex(bytes("e")), s: 1 } },
    remove: [],
  }, retry);
  await dropOwnSiblings(
    m.ctx,
    [`${DIR}/metadata.yaml`, `${DIR}/extra`, `${DIR}/peer`, `${DIR}/gone`],
    "me",
  );
  assert.equal(store.peekText(`${DIR}/metadata.yaml`), undefined, "own and unnamed: deleted");
  assert.equal(store.peekText(`${DIR}/extra`), "e", "own but named: kept");
  assert.equal(store.peekText(`${DIR}/peer`), "p", "a peer's: kept");
});

Deno.test("dropOwn deletes only the version given: another version in its place stays", async () => {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  const first = await store.put(`${DIR}/raw`, bytes("mine"), PutModes.overwrite);
  await store.put(`${DIR}/raw`, bytes("theirs"), PutModes.overwrite);
  await dropOwn(m.ctx, `${DIR}/raw`, first.version);
  assert.equal(store.peekText(`${DIR}/raw`), "theirs");
  const now = await store.head(`${DIR}/raw`);
  await dropOwn(m.ctx, `${DIR}/raw`, now!.version);
  assert.equal(store.peekText(`${DIR}/raw`), undefined);
});
