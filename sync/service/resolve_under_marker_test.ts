/**
 * `resolve --mine` of a conflict whose side here is the deletion of a data
 * version file while the `latest` marker here names that version: no push
 * deletes such a version (`version-under-marker`), so the resolution is
 * refused before anything changes (`version_under_marker`), the conflict
 * kept open for `--theirs`, or for `--mine` once the marker names another
 * version. Before, the push held the deletion back, the conflict was gone,
 * and no resolution was left to take theirs back.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../packages/testing/mod.ts";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import { ResolveRefusedError } from "./resolve.ts";
import { clone, put, quick, read } from "./clone_kit.ts";
import { deletedUnderMarker, MARKER, META, RAW, THEIRS } from "./resolve_under_marker_kit.ts";

Deno.test("resolve --mine of a deletion here of a version its marker here names is refused, nothing changed, the conflict open; --theirs then takes theirs", async () => {
  const { store, a, theirs } = await deletedUnderMarker();
  const synced = a.state.synced(RAW);
  const e = await a.resolveConflict(RAW, "mine").then(() => undefined, (e) => e);
  assert.ok(e instanceof ResolveRefusedError, String(e));
  assert.equal(e.code, "version_under_marker");
  assert.equal(e.exitCode, 1);
  assert.match(e.message, /Nothing was changed: the conflict stays open/);
  assert.ok(e.message.includes(`the \`latest\` marker here (${MARKER}) names its version (2)`));
  assert.ok(e.message.includes(`\`sluice push ${MARKER}\``), e.message);
  assert.ok(e.message.includes(`\`sluice resolve ${RAW} --mine\``), e.message);
  assert.ok(e.message.includes(`\`sluice resolve ${RAW} --theirs\``), e.message);
  const open = a.conflicts();
  assert.deepEqual(open.map((c) => [c.path, c.mine, c.theirs?.version]), [
    [RAW, null, theirs.version],
  ]);
  assert.deepEqual(a.state.synced(RAW), synced, "not rebased on theirs");
  assert.ok(a.state.dirtyPaths().includes(RAW), "the deletion still marked");
  assert.equal(store.peekText(RAW), THEIRS, "nothing deleted");
  // Still so for the next process over the cache.
  const again = await clone(store, "a", a.cacheDir);
  assert.deepEqual(again.conflicts().map((c) => c.path), [RAW]);
  const took = await again.resolveConflict(RAW, "theirs");
  assert.equal(took.resolved, true, JSON.stringify(took));
  assert.equal(await read(again, RAW), THEIRS);
  assert.deepEqual(again.conflicts(), []);
});

Deno.test("resolve --mine of that deletion, once the marker here names another version and is pushed, deletes theirs", async () => {
  const { store, a } = await deletedUnderMarker();
  await assert.rejects(a.resolveConflict(RAW, "mine"), { code: "version_under_marker" });
  // The way on the refusal names: the marker set to version 1 and pushed.
  await put(a, MARKER, "1");
  await a.pushChanged({ only: [MARKER] });
  assert.equal(store.peekText(MARKER), "1");
  const r = await a.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true);
  assert.equal(store.peekText(RAW), undefined, "theirs deleted");
  assert.deepEqual(a.conflicts(), []);
  await a.pushChanged();
  assert.equal(store.peekText(META), undefined, "the version's other file deleted too");
  assert.deepEqual(a.state.dirtyPaths(), []);
});

Deno.test("resolve --mine of that deletion on a service without the version-under-marker gate is not refused: its push deletes theirs", async () => {
  const { store, a } = await deletedUnderMarker();
  const off = await createSluice({
    cacheDir: a.cacheDir,
    store,
    identity: { holder: "a@host", hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
    conditional: new ConditionalWrites(),
    disable: ["version-under-marker"],
  });
  const r = await off.resolveConflict(RAW, "mine");
  assert.equal(r.resolved, true, JSON.stringify(r));
  assert.equal(r.deleted, true);
  assert.equal(store.peekText(RAW), undefined);
});
