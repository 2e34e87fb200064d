/**
 * A push of this cache whose commit landed with its answer lost, then a
 * peer that pulled that write uploads an edit over it and is cut off before
 * its own commit. This cache pushes again: the index names its own write,
 * not the version its copy is based on, and the store holds the peer's
 * upload, which no index names. Where the copy here is still that write
 * (the bytes the index names), the upload is no change over it: the push
 * waits for it (`push_waiting_uncommitted`), as over any other writer's
 * uncommitted upload, and meets the peer's change once it is committed;
 * should the peer withdraw it instead (a deletion pushed, or another
 * edit), no conflict here names an object that is gone. Where the copy
 * was edited here since, nothing tells this cache's own committed write
 * from a peer's committed change (whose object an upload replaced, as in
 * `own_write_rewritten_test.ts`): the push records a conflict naming the
 * upload, which both resolutions close, whatever its writer does next.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { PUSH_WAITING_UNCOMMITTED } from "../../middleware/cas_outcomes.ts";
import type { SyncService } from "./service.ts";
import { WAITED_HERE } from "./waiting_record.ts";
import { ADOPTED_UNCOMMITTED } from "./conflicts.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, read } from "./clone_kit.ts";

const PATH = "notes/n.md";

type Way = "mine" | "theirs";

/** The index's version at `PATH` (undefined: none). */
const indexed = async (store: InMemoryStore) =>
  (await readIndex(store, quick.retry))?.entries[PATH]?.v;

/**
 * `a`'s write of `PATH` (a create, or an update of a file both synced),
 * committed with its answer lost; `b` pulled it and uploaded an edit, its
 * commit cut off; then `a` pushes again (its copy edited since, or not).
 */
async function peerUploadOverOwnCommit(update: boolean, edited: boolean) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  if (update) {
    await put(a, PATH, "one");
    await a.pushChanged();
    await b.pullChanged();
  }
  // The index write lands, its answer lost (an update, too, when a synced the path).
  const own = await createAnswerLost(store, a, PATH, "a's write");
  await b.pullChanged();
  assert.equal(await read(b, PATH), "a's write");
  await put(b, PATH, "b's edit");
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(b.pushChanged(), /could not be reached/);
  const upload = (await store.head(PATH))?.version;
  assert.ok(upload !== undefined && upload !== own, "b's upload stands over a's write");
  assert.equal(await indexed(store), own, "the index names a's own write");
  const mine = edited ? "a's edit" : "a's write";
  if (edited) await put(a, PATH, mine);
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  const pushed = await a.pushChanged();
  return { store, a, b, own, upload, mine, pushed, warnings };
}

/** `a` waits at `PATH`: no conflict, its copy kept and dirty, `status` says it waited. */
async function assertWaits(a: SyncService, mine: string) {
  assert.deepEqual(a.conflicts(), [], "no conflict with an upload no index names");
  assert.equal(await read(a, PATH), mine);
  const { entries } = await a.statusReport();
  const at = entries.find((e) => e.path === PATH);
  assert.ok(at?.reason?.startsWith(WAITED_HERE), `status: ${JSON.stringify(at)}`);
}

/** b withdraws its upload: its user deletes the file, and b pushes the deletion. */
async function peerDeletes(store: InMemoryStore, b: SyncService) {
  await Deno.remove(`${b.cacheDir}/${PATH}`);
  await b.markDirty({ relPath: PATH });
  assert.deepEqual((await b.pushChanged()).deleted, [PATH]);
  assert.equal(await store.head(PATH), null, "b's upload is gone");
}

const flavours = [false, true].map((update) => ({
  update,
  what: update ? "an update" : "a create",
}));

for (const { update, what } of flavours) {
  Deno.test(`${what} whose commit answer was lost, a peer's upload over it cut off: the push waits for it, and meets it as a conflict once committed`, async () => {
    const { store, a, b, upload, mine, pushed, warnings } = await peerUploadOverOwnCommit(
      update,
      false,
    );
    assert.deepEqual(pushed.conflicts, []);
    assert.ok(warnings.includes(PUSH_WAITING_UNCOMMITTED), warnings.join());
    await assertWaits(a, mine);
    // b commits: now a committed change, which a's copy meets as a conflict.
    await b.pushChanged();
    assert.equal(await indexed(store), upload);
    const again = await a.pushChanged();
    assert.deepEqual(again.conflicts, [PATH]);
    assert.deepEqual(a.conflicts().map((c) => c.theirs?.version), [upload]);
    assert.equal(await read(a, PATH), mine, "nothing of a's lost");
    assert.equal(store.peekText(PATH), "b's edit", "nor of b's");
  });

  Deno.test(`${what} whose commit answer was lost, a peer's upload over it cut off and then withdrawn by a deletion: no conflict names the upload; the deletion is met as a committed change`, async () => {
    const { store, a, b, upload, mine } = await peerUploadOverOwnCommit(update, false);
    await peerDeletes(store, b);
    assert.ok(
      a.conflicts().every((c) => c.theirs?.version !== upload),
      "no conflict names the withdrawn upload",
    );
    await assertWaits(a, mine);
    // b deleted a's committed write: a change a's copy (an update synced
    // before) is not based on, a conflict with the deletion; a create's
    // copy, never synced here, is published again, as over any peer's
    // deletion of it.
    const pulled = await a.pullChanged();
    assert.equal(await read(a, PATH), mine);
    if (update) {
      assert.deepEqual(pulled.conflicts, [PATH]);
      assert.deepEqual(a.conflicts().map((c) => c.theirs), [null]);
      await resolves(store, a, mine, "mine");
    } else {
      assert.deepEqual(pulled.conflicts, []);
      assert.deepEqual((await a.pushChanged()).uploaded, [PATH]);
      assert.equal(store.peekText(PATH), mine);
    }
  });

  Deno.test(`${what} whose commit answer was lost, a peer's upload over it cut off and its writer gone for good: --adopt-uncommitted publishes that upload as its writer's change, met as a conflict`, async () => {
    const { store, a, upload, mine } = await peerUploadOverOwnCommit(update, false);
    const warnings: string[] = [];
    a.events.on("warning", (w) => void warnings.push(w.code));
    const pushed = await a.pushChanged({ adoptUncommitted: [PATH] });
    assert.ok(warnings.includes(ADOPTED_UNCOMMITTED), warnings.join());
    assert.equal(await indexed(store), upload, "b's upload is published");
    assert.deepEqual(pushed.conflicts, [PATH]);
    assert.deepEqual(a.conflicts().map((c) => c.theirs?.version), [upload]);
    await resolves(store, a, mine, "mine");
  });

  for (const way of ["mine", "theirs"] as const) {
    for (const edited of [false, true]) {
      const copy = edited ? ", edited here since" : "";
      Deno.test(`${what}${copy} whose commit answer was lost, a peer's upload over it cut off and then replaced by another edit, committed: a meets that edit as a conflict, resolved --${way}`, async () => {
        const { store, a, b, mine } = await peerUploadOverOwnCommit(update, edited);
        await put(b, PATH, "b's second edit");
        await b.pushChanged();
        const second = await indexed(store);
        await a.pullChanged();
        assert.deepEqual(a.conflicts().map((c) => c.theirs?.version), [second]);
        await resolves(store, a, mine, way);
      });
    }

    Deno.test(`${what}, edited here since, whose commit answer was lost, a peer's upload over it cut off and then withdrawn by a deletion: the conflict the push recorded closes with --${way}`, async () => {
      const { store, a, b, upload, mine, pushed } = await peerUploadOverOwnCommit(update, true);
      // No look tells a's own committed write from a peer's change here.
      assert.deepEqual(pushed.conflicts, [PATH]);
      assert.deepEqual(a.conflicts().map((c) => c.theirs?.version), [upload]);
      await peerDeletes(store, b);
      const { leftBehind } = await a.statusReport();
      assert.deepEqual(leftBehind.conflicts, [PATH]);
      await a.pullChanged();
      assert.equal(await read(a, PATH), mine);
      await resolves(store, a, mine, way);
    });
  }
}

/**
 * The open conflict at `PATH` resolves `way` (a `--mine` that meets a newer
 * change of theirs first records it, and is run again): `mine` publishes
 * `mine`, `theirs` takes the datastore's side (its copy, or its deletion);
 * the next push has nothing left there.
 */
async function resolves(store: InMemoryStore, a: SyncService, mine: string, way: Way) {
  let resolved = await a.resolveConflict(PATH, way);
  if (!resolved.resolved && way === "mine") resolved = await a.resolveConflict(PATH, way);
  assert.equal(resolved.resolved, true, JSON.stringify(resolved));
  assert.deepEqual(a.conflicts(), []);
  const held = store.peekText(PATH);
  if (way === "mine") assert.equal(held, mine);
  else assert.equal(await read(a, PATH), held);
  assert.equal(await indexed(store), (await store.head(PATH))?.version);
  const pushed = await a.pushChanged();
  assert.deepEqual([...pushed.conflicts, ...pushed.uploaded], []);
}
