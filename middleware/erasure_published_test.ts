import assert from "node:assert/strict";
import { erasureWithStore as fresh } from "./erasure_fixture.ts";
import { completeErasure } from "./erasure_complete.ts";
import { emptyJournal, readErasureJournal, writeErasureJournal } from "./erasure_journal.ts";
import { keptAsPublished, publishedFiles } from "./erasure_published.ts";
import { sha256Hex } from "../sync/hash.ts";
import { PutModes } from "../sync/ports.ts";
import { SyncState } from "../sync/service/state.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);
const D = "data/t/m/d";

/**
 * A cache whose version 2 holds `raw`, published (synced, unchanged),
 * `metadata.yaml`, published and changed here since, and `extra`, the
 * run's own (dirty, never synced); its marker, changed here, names it.
 */
async function partlyPublished() {
  const f = await fresh();
  for (const [path, body] of [[`${D}/2/raw`, "published"], [`${D}/2/metadata.yaml`, "meta"]]) {
    const info = await f.store.put(path, enc(body), PutModes.create);
    await f.cache.write(path, enc(body));
    await f.state.recordSynced(path, {
      hash: await sha256Hex(enc(body)),
      version: info.version,
      size: body.length,
    });
  }
  await f.dirty(`${D}/2/metadata.yaml`, "meta changed by the run");
  await f.dirty(`${D}/2/extra`, "the run's own");
  await f.dirty(`${D}/latest`, "2");
  return f;
}

Deno.test("an erasure keeps a version's files published already: unchanged ones as they are, changed ones put back from the datastore; the run's own go", async () => {
  const f = await partlyPublished();
  assert.deepEqual(await publishedFiles(f.cache, f.state, [`${D}/2`]), [`${D}/2/raw`]);
  await writeErasureJournal(f.cache, { ...emptyJournal(), erase: [`${D}/2`] });
  const outcome = await completeErasure(f, await readErasureJournal(f.cache));
  assert.deepEqual(outcome.erased, [`${D}/2`]);
  assert.deepEqual(outcome.published, [`${D}/2/metadata.yaml`, `${D}/2/raw`]);
  assert.equal(dec(await f.cache.read(`${D}/2/raw`)), "published");
  assert.equal(dec(await f.cache.read(`${D}/2/metadata.yaml`)), "meta", "the datastore's bytes");
  assert.equal(await f.cache.read(`${D}/2/extra`), null);
  assert.ok(f.state.synced(`${D}/2/raw`) && f.state.synced(`${D}/2/metadata.yaml`));
  assert.equal(f.state.synced(`${D}/2/extra`), undefined);
  // The marker the run moved to its version is not left naming it: none was synced, none is left.
  assert.equal(await f.cache.read(`${D}/latest`), null);
  assert.deepEqual(f.state.dirtyPaths(), []);
  const journal = await readErasureJournal(f.cache);
  assert.deepEqual([journal.erase, journal.trash, journal.keptPublished], [[], [], undefined]);
  // The manifest on disk still records them: another process over the cache sees them synced, and here.
  const other = await SyncState.open(f.dir);
  assert.ok(other.synced(`${D}/2/raw`) && other.synced(`${D}/2/metadata.yaml`));
  assert.deepEqual(await publishedFiles(f.cache, other, [`${D}/2`]), [
    `${D}/2/metadata.yaml`,
    `${D}/2/raw`,
  ]);
});

Deno.test("a published file changed here whose synced version the datastore no longer holds is the erasure's: never put back over the datastore's newer state", async () => {
  const f = await partlyPublished();
  f.store.seed(`${D}/2/metadata.yaml`, "a peer's newer bytes");
  assert.deepEqual(await keptAsPublished(f, `${D}/2`), [`${D}/2/raw`]);
  assert.equal(dec(await f.cache.read(`${D}/2/metadata.yaml`)), "meta changed by the run");
});

Deno.test("an erasure resumed after a cut-off keeps what is published under a directory it had not reached", async () => {
  const f = await partlyPublished();
  // Cut off before the directory: the journal names it, nothing moved yet.
  await writeErasureJournal(f.cache, {
    ...emptyJournal(),
    erase: [`${D}/2`],
    markers: [`${D}/latest`],
  });
  const outcome = await completeErasure(f, await readErasureJournal(f.cache));
  assert.deepEqual(outcome.published, [`${D}/2/metadata.yaml`, `${D}/2/raw`]);
  assert.equal(dec(await f.cache.read(`${D}/2/raw`)), "published");
  assert.equal(await f.cache.read(`${D}/2/extra`), null);
});
