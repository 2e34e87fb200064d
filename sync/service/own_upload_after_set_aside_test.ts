/**
 * A copy of a data version set aside here as a lost version's
 * (`version_exists`: a peer published that version number first) stays in
 * the set-aside area until it is resolved. Should the peer's version be
 * deleted later and this cache write that version number again, its own
 * upload, committed with its answer lost, is this cache's to take back once
 * the file is deleted here: the earlier set-aside does not make it a
 * peer's published version.
 */
import assert from "node:assert/strict";
import { type FakeClock, hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, isIndexKey, put, quick, read } from "./clone_kit.ts";

const RAW = "data/acme/box/m3/state/1/raw";

/** A store over `base` whose next index write, once `cut()` arms it, lands and loses its answer. */
function answerCutStore(base: InMemoryStore) {
  let armed = false;
  const store = hookedStore(base, {
    after: (k) => {
      if (armed && isIndexKey(k)) {
        armed = false;
        throw new UnreachableError("the answer was lost");
      }
    },
  });
  return { store, cut: () => armed = true };
}

/**
 * `a` writes RAW again and pushes, its commit landing with its answer lost;
 * the file is then deleted here: the next push must take that own upload
 * back, and no pull bring it back.
 */
async function takenBackOnceDeleted(
  a: Awaited<ReturnType<typeof clone>>,
  base: InMemoryStore,
  cut: () => void,
) {
  await put(a, RAW, "a's second output");
  cut();
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(base.peekText(RAW), "a's second output");
  assert.ok((await readIndex(base, quick.retry))?.entries[RAW], "its commit landed");
  // Deleted here: the push takes its own upload back.
  await Deno.remove(`${a.cacheDir}/${RAW}`);
  await a.markDirty({ relPath: RAW });
  await a.pushChanged();
  assert.equal(base.peekText(RAW), undefined, "a's own upload is still on the datastore");
  assert.equal((await readIndex(base, quick.retry))?.entries[RAW], undefined, "and named");
  await a.pullChanged();
  assert.equal(await read(a, RAW), undefined, "the deletion here was undone by a pull");
}

Deno.test("an own upload committed with its answer lost, at a path where a lost version's copy was set aside earlier, is taken back once the file is deleted here", async () => {
  const base = new InMemoryStore();
  // Once armed, the index write of a's push lands and its answer is lost.
  const { store, cut } = answerCutStore(base);
  const a = await clone(store, "a");
  const b = await clone(base, "b");
  // b publishes version 1 first; a's run of version 1 is refused, its copy set aside.
  await put(b, RAW, "b's output");
  await b.pushChanged();
  await put(a, RAW, "a's first output");
  await assert.rejects(a.pushChanged(), /already exists on the datastore/);
  assert.equal(await read(a, RAW), undefined, "a's copy was set aside");
  // b's version is deleted; a pulls, then writes version 1 again.
  await Deno.remove(`${b.cacheDir}/${RAW}`);
  await b.markDirty({ relPath: RAW });
  await b.pushChanged();
  assert.equal(base.peekText(RAW), undefined);
  await a.pullChanged();
  await takenBackOnceDeleted(a, base, cut);
});

Deno.test("an own upload committed with its answer lost, at a path whose earlier copy was set aside for an entry naming nothing (a put-back that might come), is taken back once the file is deleted here", async () => {
  const base = new InMemoryStore();
  const { store, cut } = answerCutStore(base);
  const a = await clone(store, "a");
  const b = await clone(base, "b");
  // b publishes version 1; its object is then deleted outside Sluice, the
  // entry left naming nothing, which a's pull sees.
  await put(b, RAW, "b's output");
  await b.pushChanged();
  await base.delete(RAW);
  await a.pullChanged();
  // a's run of version 1: nothing created where a put-back may come, its copy set aside.
  await put(a, RAW, "a's first output");
  await assert.rejects(
    a.pushChanged(),
    (e: Error & { code?: string }) => e.code === "version_exists",
  );
  assert.equal(await read(a, RAW), undefined, "a's copy was set aside");
  // Past the grace, a's pull takes the entry out; a writes version 1 again.
  await (a.clock as FakeClock).advance(16 * 60_000);
  await a.pullChanged();
  assert.equal((await readIndex(base, quick.retry))?.entries[RAW], undefined, "the entry removed");
  await takenBackOnceDeleted(a, base, cut);
});
