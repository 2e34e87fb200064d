/**
 * A data version is never rewritten by Sluice, but another client of the
 * layout can publish the same version again with other bytes (one whose
 * fast path skipped the commit that published it numbers its own run the
 * same). A pull never writes over the copy this cache synced of such a
 * version: it sets it aside, records a conflict and says so.
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush, waitFor } from "../../packages/testing/mod.ts";
import { clone, pastDanglingGrace, put, read, stopsAtDownload } from "./clone_kit.ts";
import type { WarningEvent } from "../events.ts";
import type { SyncService } from "./service.ts";
import { VERSION_REWRITTEN } from "./pull_aside.ts";

const RAW = "data/aws/ec2/m1/state/2/raw";

/** Clones `a` and `b` of `store`: `b` synced RAW ("sluice's version 2") as `a` published it. */
async function bSynced(store: InMemoryStore) {
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, RAW, "sluice's version 2");
  await a.pushChanged();
  await b.pullChanged();
  return { a, b };
}

/** `b` synced RAW as `a` published it; an old client then wrote the same version with other bytes. */
async function rewrittenVersion(bytes = "the old client's version 2") {
  const store = new InMemoryStore();
  const { b } = await bSynced(store);
  assert.equal(await read(b, RAW), "sluice's version 2");
  await peerPush(store, { [RAW]: bytes });
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  return { store, b, warnings };
}

Deno.test("a pull sets aside the copy of a data version the datastore holds again with other bytes, and records a conflict", async () => {
  const { b, warnings } = await rewrittenVersion();
  const r = await b.pullChanged();
  assert.deepEqual(r.conflicts, [RAW], "left for its user to look at: not a success");
  assert.equal(r.setAside.length, 1);
  assert.equal(
    await read(b, r.setAside[0]),
    "sluice's version 2",
    "what was published first is kept",
  );
  assert.equal(await read(b, RAW), "the old client's version 2", "the datastore's copy is taken");
  const told = warnings.find((w) => w.code === VERSION_REWRITTEN);
  assert.ok(told, JSON.stringify(warnings.map((w) => w.code)));
  assert.match(told.message, /never rewritten/);
  assert.match(told.message, /sluice resolve data\/aws\/ec2\/m1\/state\/2\/raw --theirs/);
  // Never written over: --mine and --merged are refused, nothing changed.
  for (const how of ["mine", "merged"] as const) {
    const refused = await b.resolveConflict(RAW, how).catch((e) => e);
    assert.equal(refused.code, "version_exists", refused.message);
    assert.match(refused.message, /never written over/);
    assert.deepEqual(b.conflicts().map((c) => c.path), [RAW]);
    assert.equal(await read(b, RAW), "the old client's version 2");
  }
  // Settled by taking theirs; the set-aside copy stays until deleted.
  const settled = await b.resolveConflict(RAW, "theirs");
  assert.equal(settled.resolved, true);
  assert.equal(await read(b, r.setAside[0]), "sluice's version 2");
});

/** A pull of `b`'s, over `store`, that stops for good at its download of RAW; resolves once it got there. */
async function pullStopsAtDownload(store: InMemoryStore, b: SyncService) {
  const { store: stops, downloading } = stopsAtDownload(store, RAW);
  const stopped = await clone(stops, "b", b.cacheDir);
  stopped.pullChanged().catch(() => {});
  await waitFor(() => downloading());
}

Deno.test("the same bytes published again at another version are no rewrite: taken quietly", async () => {
  const { b, warnings } = await rewrittenVersion("sluice's version 2");
  const r = await b.pullChanged();
  assert.deepEqual([r.conflicts, r.setAside], [[], []]);
  assert.deepEqual(warnings.filter((w) => w.code === VERSION_REWRITTEN), []);
});

Deno.test("a copy of a rewritten data version set aside by a pull that stopped before recording its conflict is named again when the cache is next opened", async () => {
  const { store, b } = await rewrittenVersion();
  // b's pull sets its synced copy aside, then stops for good at the download.
  await pullStopsAtDownload(store, b);
  assert.equal(await read(b, RAW), undefined, "set aside before the download");
  // The next command to open the cache: the copy, what was published first, is named.
  const again = await clone(store, "b", b.cacheDir);
  const rec = again.conflicts().find((c) => c.path === RAW);
  assert.ok(rec, `no conflict names the set-aside copy: ${JSON.stringify(again.conflicts())}`);
  assert.match(rec.mine?.location ?? "", /^\.sluice\/set-aside\//);
  assert.equal(await read(again, rec.mine!.location), "sluice's version 2");
});

/**
 * The pull that set the copy aside stopped before its fetch: the path is
 * empty because of that pull, not deleted by its user. The next pull does
 * what the stopped one was to do (takes the datastore's copy there, the
 * conflict still open and the copy still set aside), as a full pull would
 * have left it; taken for a deletion here, the path stayed empty.
 */
Deno.test("a pull after one that stopped between a rewritten version's set-aside and its download takes the datastore's copy, the conflict still open", async () => {
  const { store, b } = await rewrittenVersion();
  await pullStopsAtDownload(store, b);
  const again = await clone(store, "b", b.cacheDir);
  const r = await again.pullChanged();
  assert.deepEqual(r.conflicts, [RAW], "still left for its user to look at");
  assert.equal(
    await read(again, RAW),
    "the old client's version 2",
    "the datastore's copy is taken",
  );
  const rec = again.conflicts().find((c) => c.path === RAW);
  assert.match(rec?.mine?.location ?? "", /^\.sluice\/set-aside\//);
  assert.equal(
    await read(again, rec!.mine!.location),
    "sluice's version 2",
    "what was published first is kept",
  );
  const settled = await again.resolveConflict(RAW, "theirs");
  assert.equal(settled.resolved, true);
  assert.equal(await read(again, RAW), "the old client's version 2");
});

/**
 * A conflict record is no reason to refuse by itself: once the writer that
 * published the version first deleted it, nothing is left to write over,
 * and --mine creates it.
 */
Deno.test("a data version whose other copy its writer deleted since the conflict: --mine publishes this cache's copy, never refused as written over", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const D = RAW.slice(0, RAW.lastIndexOf("/"));
  await put(b, RAW, "b's version 2");
  await put(b, `${D}/metadata.yaml`, "v: 2\n");
  await put(a, RAW, "a's version 2");
  await put(a, `${D}/metadata.yaml`, "v: 2\n");
  await a.pushChanged();
  assert.deepEqual((await b.pullChanged()).conflicts, [RAW]);
  // a deletes its version; the datastore holds nothing there any more.
  await Deno.remove(`${a.cacheDir}/${D}`, { recursive: true });
  await a.markDirty({ relPath: D });
  await a.pushChanged();
  assert.equal(store.peekText(RAW), undefined);
  const r = await b.resolveConflict(RAW, "mine").catch((e: Error) => e);
  assert.ok(!(r instanceof Error), `refused: ${r instanceof Error ? r.message : ""}`);
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(RAW), "b's version 2");
});

/**
 * A deployment's `classifierRules` may class a data path as `other` (last
 * writer wins): the push's gates then publish --mine over theirs, never
 * refused as a data version.
 */
Deno.test("resolve --mine of a path classifierRules class as `other` is not refused as a data version", async () => {
  const store = new InMemoryStore();
  const rules = { classifierRules: [{ pattern: "data/aws/**", class: "other" as const }] };
  const a = await clone(store, "a", undefined, rules);
  const b = await clone(store, "b", undefined, rules);
  await put(a, RAW, "a's bytes");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, RAW, "a's bytes, again");
  await a.pushChanged();
  await put(b, RAW, "b's bytes");
  assert.deepEqual((await b.pullChanged()).conflicts, [RAW]);
  const r = await b.resolveConflict(RAW, "mine").catch((e: Error) => e);
  assert.ok(!(r instanceof Error), `refused: ${r instanceof Error ? r.message : ""}`);
  assert.equal(r.resolved, true);
  assert.equal(store.peekText(RAW), "b's bytes");
});

/**
 * `b` synced RAW as `a` published it; another tool deleted its object, and
 * a pull past the dangling-entry grace removed its entry: `b` keeps its copy
 * at the path, as the last one, in a conflict. Another Sluice client then
 * publishes the version again with other bytes (nothing was there): the
 * copy kept is set aside as any synced copy of a rewritten version is, and
 * the datastore's taken, the conflict kept for `--theirs`. Kept in place, the
 * acknowledged version was not in the cache until its user resolved.
 */
Deno.test("a copy kept over the datastore's loss of its data version is set aside when another writer publishes the version again", async () => {
  const store = new InMemoryStore();
  const { b } = await bSynced(store);
  await store.delete(RAW); // outside Sluice
  const c = await clone(store, "c");
  await pastDanglingGrace(c);
  await c.pullChanged();
  const kept = await b.pullChanged();
  assert.deepEqual(kept.lost, [RAW]);
  assert.equal(await read(b, RAW), "sluice's version 2", "the last copy is kept");
  const d = await clone(store, "d");
  await put(d, RAW, "another run's version 2");
  await d.pushChanged();
  const r = await b.pullChanged();
  assert.deepEqual(r.conflicts, [RAW]);
  assert.equal(await read(b, RAW), "another run's version 2", "the datastore's copy is taken");
  const rec = b.conflicts().find((x) => x.path === RAW);
  assert.match(rec?.mine?.location ?? "", /^\.sluice\/set-aside\//);
  assert.equal(await read(b, rec!.mine!.location), "sluice's version 2", "the kept copy stays");
  const settled = await b.resolveConflict(RAW, "theirs");
  assert.equal(settled.resolved, true);
  assert.equal(await read(b, RAW), "another run's version 2");
});
