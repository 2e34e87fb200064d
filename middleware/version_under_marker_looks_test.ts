/**
 * What version-under-marker looks at, each look alone over a mock push
 * context: the reasons, the index read once, the looks of the shared rule
 * (and its verdicts over them), a let-through deletion's marker once the
 * uploads are made, and whether any index names a file.
 */
import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext, planEntry } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
import { markerVerdicts } from "../sync/version_marker_hold.ts";
import {
  committedMarkerReason,
  lazyIndex,
  pushMarkerLooks,
  stillPublished,
  underMarkerReason,
  unnamedIn,
} from "./version_under_marker_looks.ts";

const DATA = "data/shell/cmd/m1/out";
const MARKER = `${DATA}/latest`;
const RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
/** The datastore's index naming `path` with the hash of `text`. */
const named = async (store: InMemoryStore, path: string, text: string) =>
  await updateIndex(store, {
    set: { [path]: { v: "v1", h: await sha256Hex(enc(text)), s: text.length } },
    remove: [],
  }, RETRY);

Deno.test("underMarkerReason and committedMarkerReason name the marker, the version and the push that moves it", () => {
  const cmd = `sluice push ${DATA}/10 ${MARKER}`;
  const under = underMarkerReason(MARKER, "10");
  assert.match(under, /names this version \(10\)/);
  assert.ok(under.includes(cmd), under);
  const other = committedMarkerReason(MARKER, "10", "9");
  assert.match(other, /datastore's latest marker .* names this version \(10\)/);
  assert.match(other, /it names 9\)/);
  assert.ok(other.includes(cmd), other);
  assert.match(committedMarkerReason(MARKER, "10", ""), /it names no version\)/);
});

Deno.test("pushMarkerLooks: the marker here (null where none), the index's hash (null where unreadable), written where planned as a put, files published where put or synced", async () => {
  const store = new InMemoryStore();
  await named(store, MARKER, "2");
  const raw = `${DATA}/1/raw`;
  const { ctx, cache, state } = await mockPushContext({
    store,
    plan: [planEntry(MARKER), planEntry(raw)],
  });
  const looks = pushMarkerLooks(ctx, lazyIndex(ctx));
  assert.equal(await looks.markerBytes(MARKER), null);
  await cache.write(MARKER, enc("10\n"));
  assert.deepEqual(await looks.markerBytes(MARKER), enc("10\n"));
  assert.equal(await looks.indexedHash(MARKER), await sha256Hex(enc("2")));
  assert.equal(await looks.indexedHash(`${DATA}/other`), undefined);
  const failed = pushMarkerLooks(ctx, () => Promise.reject(new Error("unreachable")));
  assert.equal(await failed.indexedHash(MARKER), null, "an index that cannot be read cannot tell");
  assert.equal(await looks.writesMarker(MARKER), true);
  ctx.plan.find((e) => e.path === MARKER)!.action = "skip";
  assert.equal(await looks.writesMarker(MARKER), false, "not planned as a put");
  await cache.write(raw, enc("version 1"));
  assert.deepEqual(await looks.filesUnder(`${DATA}/1`), [raw]);
  assert.equal(looks.published(raw), true, "written by this push");
  assert.equal(looks.published(`${DATA}/1/meta`), false);
  state.setSynced(`${DATA}/1/meta`, { hash: "h", version: "v", size: 1 });
  assert.equal(looks.published(`${DATA}/1/meta`), true, "synced");
});

Deno.test("lazyIndex reads the datastore's index only when asked, and once", async () => {
  const store = new InMemoryStore();
  await named(store, MARKER, "2");
  const { ctx } = await mockPushContext({ store });
  const before = store.count("get");
  const index = lazyIndex(ctx);
  assert.equal(store.count("get"), before, "nothing read before it is asked");
  const got = await index();
  assert.ok(got?.entries[MARKER], "the index read names the marker");
  const reads = store.count("get");
  assert.ok(reads > before);
  assert.equal(await index(), got);
  assert.equal(store.count("get"), reads, "read once");
});

Deno.test("markerVerdicts over pushMarkerLooks: free where no committed marker names the version, held where the marker here is not published, in-place where it is", async () => {
  const store = new InMemoryStore();
  await named(store, MARKER, "2");
  const held = await mockPushContext({ store });
  await held.cache.write(MARKER, enc("1"));
  const look = markerVerdicts(pushMarkerLooks(held.ctx, lazyIndex(held.ctx)));
  assert.equal((await look(MARKER, "3")).kind, "free");
  assert.equal((await look(MARKER, "2")).kind, "committed", "the marker here is not planned");
  // The marker here planned, naming version 1, whose file this push writes.
  const watch = await mockPushContext({
    store,
    plan: [planEntry(MARKER), planEntry(`${DATA}/1/raw`)],
  });
  await watch.cache.write(MARKER, enc("1"));
  await watch.cache.write(`${DATA}/1/raw`, enc("version 1"));
  const verdict = await markerVerdicts(pushMarkerLooks(watch.ctx, lazyIndex(watch.ctx)))(
    MARKER,
    "2",
  );
  assert.equal(verdict.kind, "in-place");
  // The committed marker this cache synced names it, the index naming none.
  const synced = await mockPushContext();
  synced.state.setSynced(MARKER, { hash: await sha256Hex(enc("4\n")), version: "v", size: 2 });
  await synced.cache.write(MARKER, enc("3"));
  const got = await markerVerdicts(pushMarkerLooks(synced.ctx, lazyIndex(synced.ctx)))(MARKER, "4");
  assert.deepEqual(got, { kind: "committed", marker: MARKER, n: "4", here: "3" });
});

Deno.test("stillPublished holds where the marker is not written, or a file of its version is neither synced nor still written", async () => {
  const gone = planEntry(`${DATA}/2/raw`, { action: "delete" });
  const raw = `${DATA}/1/raw`;
  const m = await mockPushContext({ plan: [planEntry(MARKER), planEntry(raw), gone] });
  await m.cache.write(MARKER, enc("1"));
  await m.cache.write(raw, enc("version 1"));
  assert.equal(await stillPublished(m.ctx, gone), true);
  m.ctx.withdrawn.add(raw);
  assert.equal(await stillPublished(m.ctx, gone), false, "its file taken back");
  m.ctx.withdrawn.delete(raw);
  m.ctx.plan.find((e) => e.path === raw)!.action = "skip";
  assert.equal(await stillPublished(m.ctx, gone), false, "its file held back");
  m.state.setSynced(raw, { hash: "h", version: "v", size: 9 });
  assert.equal(await stillPublished(m.ctx, gone), true, "its file published already");
  m.ctx.plan.find((e) => e.path === MARKER)!.action = "skip";
  assert.equal(await stillPublished(m.ctx, gone), false, "the marker not written");
});

Deno.test("unnamedIn: goes where no index names the file and the store holds nothing there; held where an index names it, there is none, or another writer's object is there", async () => {
  const none = await mockPushContext();
  assert.equal(await unnamedIn(none.ctx, lazyIndex(none.ctx))(`${DATA}/2/raw`), "held");
  const store = new InMemoryStore();
  await named(store, `${DATA}/2/raw`, "version 2");
  await store.put(`${DATA}/3/raw`, enc("theirs"), PutModes.create, {
    metadata: { "sluice-writer": "peer" },
  });
  const m = await mockPushContext({ store });
  const look = unnamedIn(m.ctx, lazyIndex(m.ctx));
  assert.equal(await look(`${DATA}/2/raw`), "held", "the index names it");
  assert.equal(await look(`${DATA}/3/raw`), "held", "another writer's object");
  assert.equal(await look(`${DATA}/4/raw`), "goes");
});
