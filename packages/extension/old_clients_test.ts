/**
 * The extension beside old clients (`oldClients: true`): a push the tool
 * makes without holding the global lock commits under it; one under the
 * tool's own hold of it goes on as before.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { peerPush, peerReadIndex, waitFor } from "../testing/mod.ts";
import { assertIndexCurrent } from "../../sync/service/clone_kit.ts";
import { GLOBAL, oldClientsTool, otherStepThenOldClient } from "./old_clients_kit.ts";

const MINE = "config/mine.yaml";
const THEIRS = "files/theirs.txt";
const NEW = "config/new.yaml";

async function setup(oldClients: boolean) {
  const s = await oldClientsTool(createSluice, oldClients, "sluice-ext-old-");
  await Deno.mkdir(`${s.cache}/config`);
  await Deno.writeTextFile(`${s.cache}/${MINE}`, "mine\n");
  await s.svc.markDirty({ relPath: MINE });
  return s;
}

Deno.test("extension, oldClients: a push without the tool's global lock waits out an old client's index rewrite; both stay named", async () => {
  const s = await setup(true);
  let done = false;
  let run: Promise<unknown> = Promise.resolve();
  await s.oldClientLock.withLock(() =>
    peerPush(s.store, { [THEIRS]: "theirs\n" }, {
      now: () => s.clock.now(),
      afterRead: async () => {
        run = s.svc.pushChanged().finally(() => (done = true));
        await waitFor(
          () =>
            s.store.log.some((l) => l.op === "put" && l.key === GLOBAL && l.outcome === "error"),
          { clock: s.clock, stepMs: 50 },
        );
        assert.equal(done, false, "the commit waits for the old client's lock");
      },
    })
  );
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  assert.equal(await run, 1);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)).sort(), [THEIRS, MINE].sort());
  assert.equal(s.store.peek(GLOBAL), undefined);
});

Deno.test("extension, without oldClients: the same push lands inside the old client's rewrite and is dropped (control)", async () => {
  const s = await setup(false);
  await s.oldClientLock.withLock(() =>
    peerPush(s.store, { [THEIRS]: "theirs\n" }, {
      now: () => s.clock.now(),
      afterRead: async () => {
        assert.equal(await s.svc.pushChanged(), 1);
      },
    })
  );
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), [THEIRS]);
});

Deno.test("extension, oldClients: a push under the tool's own hold of the global lock takes no other", async () => {
  const s = await setup(true);
  const global = s.provider().createLock("/repo");
  await global.acquire();
  assert.equal(await s.svc.pushChanged(), 1);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), [MINE]);
  // The tool's hold is left as it was; no second acquisition was tried.
  assert.ok(s.store.peek(GLOBAL));
  assert.equal(s.store.log.filter((l) => l.op === "put" && l.key === GLOBAL).length, 1);
  await global.release();
});

for (const oldClients of [true, false]) {
  Deno.test(
    `extension, ${
      oldClients ? "oldClients" : "without oldClients (control)"
    }: core's two-phase push of a new file an old client deletes before the commit ${
      oldClients ? "is not named, and is a conflict kept in the cache" : "is named though gone"
    }`,
    async () => {
      const s = await setup(oldClients);
      // As core drives it: prepare outside the global lock, commit under it.
      const manifest = await s.svc.preparePush();
      assert.ok(s.store.peek(MINE), "uploaded by the preparation");
      await s.oldClientLock.withLock(() =>
        peerPush(s.store, {}, { now: () => s.clock.now(), remove: [MINE] })
      );
      const global = s.provider().createLock("/repo");
      await global.acquire();
      const count = await s.svc.commitPush(manifest);
      await global.release();
      const named = Object.keys(await peerReadIndex(s.store));
      if (oldClients) {
        assert.equal(count, 0, "nothing published");
        // And said so: the tool reads only the count.
        const said = s.lines.filter((l) => /warning\[conflicts_left\]/.test(l));
        assert.equal(said.length, 1, s.lines.join("\n"));
        assert.match(said[0], new RegExp(`${MINE}.*npx sluice status --cache ${s.cache}`));
        assert.deepEqual(named, []);
        // A conflict with the deletion, left to `sluice resolve`: the next push publishes nothing.
        const global2 = s.provider().createLock("/repo");
        await global2.acquire();
        assert.equal(await s.svc.pushChanged(), 0);
        await global2.release();
        assert.deepEqual(Object.keys(await peerReadIndex(s.store)), []);
        assert.equal(await Deno.readTextFile(`${s.cache}/${MINE}`), "mine\n", "kept in the cache");
      } else {
        assert.equal(count, 1);
        assert.deepEqual(named, [MINE], "the index names an object the store does not hold");
        assert.equal(s.store.peek(MINE), undefined);
      }
    },
  );
}

for (const twoPhase of [false, true]) {
  Deno.test(
    `extension: a ${
      twoPhase ? "two-phase" : "one-phase"
    } push under the tool's hold of the global lock, lost since (broken by an operator), warns global_lock_lost`,
    async () => {
      const s = await setup(false);
      const global = s.provider().createLock("/repo");
      await global.acquire();
      // An operator breaks it; the hold's heartbeat finds it gone.
      await s.store.delete(GLOBAL);
      await waitFor(() => s.lines.some((l) => /warning\[lock_lost\]/.test(l)), {
        clock: s.clock,
        stepMs: 1_000,
        timeoutMs: 120_000,
      });
      if (twoPhase) assert.equal(await s.svc.commitPush(await s.svc.preparePush()), 1);
      else assert.equal(await s.svc.pushChanged(), 1);
      const said = s.lines.filter((l) => /warning\[global_lock_lost\]/.test(l));
      assert.equal(said.length, 1, s.lines.join("\n"));
      assert.match(said[0], /Run `sluice pull --cache /);
      await global.release();
    },
  );
}

Deno.test("extension, oldClients: a push under the tool's hold of the global lock, taken over faster than a heartbeat, warns global_lock_lost", async () => {
  const s = await setup(true);
  const global = s.provider().createLock("/repo");
  await global.acquire();
  // An operator breaks it and an old client takes it at once: no heartbeat ran.
  await s.store.delete(GLOBAL);
  await s.oldClientLock.acquire();
  assert.equal(await s.svc.pushChanged(), 1);
  const said = s.lines.filter((l) => /warning\[global_lock_lost\]/.test(l));
  assert.equal(said.length, 1, s.lines.join("\n"));
  await s.oldClientLock.release();
  await global.release();
});

Deno.test("extension, oldClients: a push under the tool's own live hold of the global lock warns nothing of it", async () => {
  const s = await setup(true);
  const global = s.provider().createLock("/repo");
  await global.acquire();
  assert.equal(await s.svc.pushChanged(), 1);
  assert.deepEqual(s.lines.filter((l) => /global_lock_lost/.test(l)), []);
  await global.release();
});

Deno.test("extension, oldClients: a push that starts while another step's commit holds the global lock, released before this push commits, still commits under the lock, outside an old client's index rewrite", async () => {
  // Another step of the workflow commits under the global lock as this
  // push (a token command's: the tool holds no lock around it) starts; that
  // commit ends (the lock released) and an old client takes the lock and
  // reads the index while this push uploads.
  let step: (() => Promise<void>) | undefined;
  const s = await oldClientsTool(createSluice, true, "sluice-ext-old-", async (key) => {
    if ((key !== MINE && key !== NEW) || !step) return;
    const go = step;
    step = undefined;
    await go();
  });
  const write = async (rel: string, text: string) => {
    await Deno.mkdir(`${s.cache}/config`, { recursive: true });
    await Deno.writeTextFile(`${s.cache}/${rel}`, text);
    await s.svc.markDirty({ relPath: rel });
  };
  await write(MINE, "mine\n");
  assert.equal(await s.svc.pushChanged(), 1);
  await write(MINE, "mine, changed\n");
  await write(NEW, "new\n");
  const other = await otherStepThenOldClient(s, s.svcProvider, { [THEIRS]: "theirs\n" });
  step = other.step;
  const race = other.race;
  s.store.resetLog();
  const run = s.svc.pushChanged().finally(() => (race.done = true));
  await waitFor(() => race.done, { clock: s.clock, stepMs: 50, timeoutMs: 20_000 });
  await race.oldClient;
  assert.equal(await run, 2);
  assert.equal(step, undefined, "the old client read the index during the push");
  assert.deepEqual(
    Object.keys(await peerReadIndex(s.store)).sort(),
    [MINE, NEW, THEIRS].sort(),
    "the old client's entry and the push's stay named",
  );
  await assertIndexCurrent(s.store, { held: true });
  assert.equal(s.store.peek(GLOBAL), undefined, "the global lock is released");
});

Deno.test("extension, oldClients: a push whose commit comes while another step's commit still holds the global lock shares that hold: the step's release waits for the push's index write, and an old client's rewrite comes after it", async () => {
  let step: (() => Promise<void>) | undefined;
  const s = await oldClientsTool(createSluice, true, "sluice-ext-old-", async (key) => {
    if ((key !== ".datastore-index.json" && !key.startsWith("_index/")) || !step) return;
    const go = step;
    step = undefined;
    await go();
  });
  await Deno.mkdir(`${s.cache}/config`);
  await Deno.writeTextFile(`${s.cache}/${MINE}`, "mine\n");
  await s.svc.markDirty({ relPath: MINE });
  assert.equal(await s.svc.pushChanged(), 1);
  await Deno.writeTextFile(`${s.cache}/${NEW}`, "new\n");
  await s.svc.markDirty({ relPath: NEW });
  const other = s.svcProvider.createLock("/repo/.swamp", { maxWaitMs: 1000 });
  await other.acquire();
  let released = false;
  let releasedAtCommit: boolean | undefined;
  let clientDone = false;
  step = async () => {
    // That step's commit ends now: its release is asked, and an old client
    // tries the lock.
    void other.release().then(() => (released = true));
    void s.oldClientLock.withLock(() =>
      peerPush(s.store, { [THEIRS]: "theirs\n" }, { now: () => s.clock.now() })
    ).finally(() => (clientDone = true));
    await waitFor(
      () =>
        released ||
        s.store.log.some((l) => l.op === "put" && l.key === GLOBAL && l.outcome === "error"),
      { clock: s.clock, stepMs: 50 },
    );
    releasedAtCommit = released;
  };
  s.store.resetLog();
  let done = false;
  const run = s.svc.pushChanged().finally(() => (done = true));
  await waitFor(() => done && clientDone && released, { clock: s.clock, stepMs: 50 });
  assert.equal(await run, 1);
  assert.equal(releasedAtCommit, false, "the step's release waited for the push's index write");
  assert.equal(
    s.store.log.filter((l) => l.op === "put" && l.key === GLOBAL && l.outcome !== "error").length,
    1,
    "the push took no lock of its own: only the old client's acquisition",
  );
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)).sort(), [MINE, NEW, THEIRS].sort());
  await assertIndexCurrent(s.store, { held: true });
  assert.equal(s.store.peek(GLOBAL), undefined, "the global lock is released");
});
