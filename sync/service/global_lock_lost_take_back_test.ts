/**
 * A push under the global lock whose commit takes back this cache's own
 * committed create (its answer lost, the file deleted here since) stops
 * after the index write that took the entry out, before its delete; its
 * lock goes stale meanwhile and an old client takes it and pushes. When the
 * push goes on, every write it makes is conditional: the delete on the
 * upload's version, the index on the entry's version. What the old client
 * wrote under the lock it took stands, and the push ends warning
 * `global_lock_lost` (chaos seed 234400244 stalled so). Where versions are
 * the bytes' (ETags), an old client's write of the upload's very bytes
 * carries its version, and the delete takes it: its bytes are put back and
 * named, even when the index held no old client's entry at the take-back's
 * read (the push knows old clients push beside it).
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import {
  FakeClock,
  hookedStore,
  InMemoryStore,
  peerPush,
  peerReadIndex,
} from "../../packages/testing/mod.ts";
import type { WarningEvent } from "../events.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";
import { GLOBAL, lockOptions, MINE, THEIRS } from "./global_lock_kit.ts";
import { createAnswerLost, quick, read } from "./clone_kit.ts";

/**
 * The cache's push of its deletion of `MINE` (its create committed, the
 * answer lost), stopped before its delete of the upload while an old client
 * breaks the global lock, takes it, and pushes `files`.
 */
async function takeBackMeetingTakeover(
  files: Record<string, string>,
  opts: { readonly etags?: boolean; readonly before?: Record<string, string> } = {},
) {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock, versionFromBytes: opts.etags });
  let stall: (() => Promise<void>) | undefined;
  const identity = { holder: "sluice@host", hostname: "host", pid: 1 };
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-gl-lost-take-back-" }),
    store: hookedStore(store, {
      beforeDelete: async (key) => {
        if (key !== MINE || !stall) return;
        const s = stall;
        stall = undefined;
        await s();
      },
    }),
    identity,
    clock,
    config: quick,
  });
  if (opts.before) await peerPush(store, opts.before, { now: () => clock.now() });
  const upload = await createAnswerLost(store, svc, MINE, "mine\n");
  await Deno.remove(`${svc.cacheDir}/${MINE}`);
  await svc.markDirty({ relPath: MINE });
  const seen: WarningEvent[] = [];
  svc.events.on("warning", (w) => seen.push(w));
  stall = async () => {
    assert.equal((await peerReadIndex(store))[MINE], undefined, "the entry went first");
    // Stale: broken and taken by an old client, which pushes under it.
    await store.delete(GLOBAL);
    const theirs = svc.lockBackend!.createLock(
      GLOBAL,
      { holder: "old-client@other", hostname: "other", pid: 2 },
      lockOptions,
    );
    await theirs.withLock(() => peerPush(store, files, { now: () => clock.now() }));
  };
  const r = await pushUnderGlobalLock(
    svc,
    svc.lockBackend!.createLock(GLOBAL, identity, lockOptions),
  );
  assert.equal(stall, undefined, "the push stopped before its delete");
  assert.ok(
    seen.some((w) => w.code === "global_lock_lost"),
    `warned: ${JSON.stringify(seen.map((w) => w.code))}`,
  );
  return { store, svc, r, upload };
}

Deno.test("global lock lost during a take-back: the delete and the index write after it leave an old client's push under the lock it took standing", async () => {
  const { store, r } = await takeBackMeetingTakeover({ [THEIRS]: "theirs\n" });
  assert.deepEqual(r.strandedChecks, [{ path: MINE, outcome: "withdrawn" }]);
  assert.equal(store.peek(MINE), undefined, "the upload is taken back");
  assert.deepEqual(
    Object.keys(await peerReadIndex(store)),
    [THEIRS],
    "the old client's entry stays, and none names the upload",
  );
  assert.equal(store.peekText(THEIRS), "theirs\n");
});

Deno.test("global lock lost during a take-back: an old client's write of the same path under the lock it took is neither deleted nor unnamed", async () => {
  const { store, svc, r } = await takeBackMeetingTakeover({ [MINE]: "old client's\n" });
  assert.equal(store.peekText(MINE), "old client's\n", "the delete, conditional, left it");
  assert.ok(Object.hasOwn(await peerReadIndex(store), MINE), "the index names it still");
  // The upload there is no longer this cache's: nothing is taken back.
  assert.deepEqual(r.strandedChecks, [{ path: MINE, outcome: "none" }], JSON.stringify(r));
  await svc.pullChanged();
  assert.equal(await read(svc, MINE), "old client's\n", "the old client's write is pulled");
});

for (const before of [undefined, { "config/older.yaml": "older\n" }]) {
  Deno.test(
    `global lock lost during a take-back (ETags${
      before ? ", an old client's entry in the index before" : ""
    }): an old client's rewrite of the same bytes under the lock it took stays in the store, named`,
    async () => {
      const { store, svc, upload } = await takeBackMeetingTakeover({ [MINE]: "mine\n" }, {
        etags: true,
        before,
      });
      // The same bytes: the old client's object carries the upload's version.
      assert.equal((await store.head(MINE))?.version, upload, "the old client's object is there");
      assert.equal(store.peekText(MINE), "mine\n");
      assert.ok(Object.hasOwn(await peerReadIndex(store), MINE), "the index names it");
      await svc.pullChanged();
      assert.equal(await read(svc, MINE), "mine\n", "the old client's write is pulled");
    },
  );
}
