/**
 * `resolve --mine` of a conflict whose side here is the deletion of the data
 * version the committed `latest` marker names, while the marker here names
 * another version that the resolution's push cannot publish in its place
 * (naming a version nowhere, or no version): the push would hold the
 * deletion back (`version-under-marker`, the committed-marker rule), the
 * conflict gone and nothing published, so the resolution is refused before
 * anything changes (`version_under_marker`), the conflict kept open for
 * `--theirs`, or for `--mine` once the marker here names a published
 * version. A marker here naming one is published with the deletion.
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { ResolveRefusedError } from "./resolve.ts";
import { clone, put, read } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";
import {
  DATA,
  deletedUnderMarker,
  MARKER,
  META,
  RAW,
  THEIRS,
  twoVersionsPublished,
} from "./resolve_under_marker_kit.ts";

/** Every object the store holds, with its bytes. */
const contents = (store: InMemoryStore) => store.keys().map((k) => [k, store.peekText(k)] as const);

/**
 * `resolve RAW --mine` on `a`, asserted refused with `version_under_marker`
 * before anything changed: the conflict record as it was, the path neither
 * rebased nor unmarked, the store untouched. The refusal's message.
 */
async function refused(store: InMemoryStore, a: SyncService): Promise<string> {
  const before = contents(store);
  const rec = a.conflicts();
  const synced = a.state.synced(RAW);
  store.resetLog();
  const e = await a.resolveConflict(RAW, "mine").then(
    (r) => `not refused: resolved ${r.resolved}, conflicts left ${a.conflicts().length}`,
    (e) => e,
  );
  assert.ok(e instanceof ResolveRefusedError, String(e));
  assert.equal(e.code, "version_under_marker");
  assert.equal(e.exitCode, 1);
  assert.match(e.message, /Nothing was changed: the conflict stays open/);
  assert.ok(e.message.includes(`\`sluice resolve ${RAW} --theirs\``), e.message);
  assert.deepEqual(a.conflicts(), rec, "the conflict record kept as it was");
  assert.deepEqual(a.state.synced(RAW), synced, "not rebased on theirs");
  assert.ok(a.state.dirtyPaths().includes(RAW), "the deletion still marked");
  assert.deepEqual(contents(store), before, "nothing changed on the datastore");
  assert.equal(store.log.filter((r) => r.op === "put" || r.op === "delete").length, 0);
  assert.equal(store.peekText(RAW), THEIRS);
  return e.message;
}

Deno.test("resolve --mine of a deletion of the committed marker's version, the marker here naming a version nowhere, is refused; the marker set to a published version, --mine deletes theirs", async () => {
  const { store, a } = await deletedUnderMarker("7");
  const message = await refused(store, a);
  assert.ok(
    message.includes(`the datastore's \`latest\` marker (${MARKER}) names its version (2)`),
  );
  assert.ok(message.includes("the marker here (it names 7)"), message);
  assert.ok(message.includes(`\`sluice resolve ${RAW} --mine\``), message);
  // The way on it names: the marker here set to a published version, then
  // --mine again (its push publishes the marker with the deletion).
  await put(a, MARKER, "1");
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true);
  assert.equal(store.peekText(RAW), undefined, "theirs deleted");
  assert.equal(store.peekText(MARKER), "1");
  assert.deepEqual(a.conflicts(), []);
  await a.pushChanged();
  assert.equal(store.peekText(META), undefined, "the version's other file deleted too");
  assert.deepEqual(a.state.dirtyPaths(), []);
});

Deno.test("resolve --mine of that deletion, the marker here naming no version, is refused; --theirs then takes theirs in the next process", async () => {
  const { store, a, theirs } = await deletedUnderMarker("none");
  const message = await refused(store, a);
  assert.ok(message.includes("the marker here (it names no version)"), message);
  const again = await clone(store, "a", a.cacheDir);
  assert.deepEqual(again.conflicts().map((c) => [c.path, c.theirs?.version]), [
    [RAW, theirs.version],
  ]);
  const took = await again.resolveConflict(RAW, "theirs");
  assert.equal(took.resolved, true, JSON.stringify(took));
  assert.equal(await read(again, RAW), THEIRS);
  assert.deepEqual(again.conflicts(), []);
});

Deno.test("resolve --mine of that deletion, the marker here naming a published version, is not refused: its push publishes the marker and deletes theirs", async () => {
  const { store, a } = await deletedUnderMarker("1");
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true);
  assert.equal(store.peekText(RAW), undefined);
  assert.equal(store.peekText(MARKER), "1");
  assert.deepEqual(a.conflicts(), []);
});

Deno.test("resolve --mine of that deletion, the marker here naming a published version but itself in conflict, is refused: no push writes a marker in conflict", async () => {
  // The marker set to 1 here while another client moved it to a version 3
  // of its own: the pull meets both the deletion and the marker as conflicts.
  const store = new InMemoryStore();
  const a = await twoVersionsPublished(store);
  await Deno.remove(`${a.cacheDir}/${DATA}/2`, { recursive: true });
  await put(a, MARKER, "1");
  await a.markDirty({ relPaths: [RAW, META] });
  await peerPush(store, { [RAW]: THEIRS, [`${DATA}/3/raw`]: "version 3", [MARKER]: "3" });
  assert.deepEqual((await a.pullChanged()).conflicts, [RAW, MARKER]);
  const message = await refused(store, a);
  assert.ok(message.includes(`${MARKER} is itself in conflict`), message);
  // The marker's conflict settled first (theirs, naming 3): the committed
  // marker no longer names 2, and --mine deletes theirs.
  assert.equal((await a.resolveConflict(MARKER, "theirs")).resolved, true);
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(store.peekText(RAW), undefined, "theirs deleted");
  assert.deepEqual(a.conflicts(), []);
});
