/**
 * The managed lockfile's transaction, after a token command's push, under a
 * hold of the global lock by another step of the workflow (its commit): the
 * transaction shares that hold, whose release waits for the transaction's
 * writes, so that an old client taking the lock then rewrites the index
 * only after them.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { peerPush, peerReadIndex, waitFor } from "../testing/mod.ts";
import { assertIndexCurrent } from "../../sync/service/clone_kit.ts";
import { GLOBAL, oldClientsTool } from "./old_clients_kit.ts";

const LOCKFILE = "config/upstream_extensions.json";
// In the lockfile's directory: an old client rewrites that part of the index.
const THEIRS = "config/theirs.txt";

Deno.test("extension, oldClients: a lockfile transaction under another step's hold of the global lock keeps that hold until its writes are made; an old client's rewrite comes after them", async () => {
  let step: (() => Promise<void>) | undefined;
  const s = await oldClientsTool(createSluice, true, "sluice-ext-lockfile-shared-", async (key) => {
    if (key !== LOCKFILE || !step) return;
    const go = step;
    step = undefined;
    await go();
  });
  const write = async (entries: Record<string, unknown>) => {
    await s.svc.markDirty({ relPath: LOCKFILE });
    await Deno.mkdir(`${s.cache}/config`, { recursive: true });
    await Deno.writeTextFile(`${s.cache}/${LOCKFILE}`, JSON.stringify(entries));
  };
  await write({ "@x/one": { version: "1" } });
  await s.svc.pushChanged();
  await write({ "@x/one": { version: "1" }, "@x/two": { version: "2" } });
  const other = s.svcProvider.createLock("/repo/.swamp", { maxWaitMs: 1000 });
  await other.acquire();
  let released = false;
  let done = false;
  let releasedAtWrite: boolean | undefined;
  let clientDone = false;
  step = async () => {
    // That step's commit ends now: its release is asked, and an old client
    // tries the lock.
    // Once it has the lock, it reads the index, and writes it back once
    // the push has ended.
    void other.release().then(() => (released = true));
    let read = false;
    void s.oldClientLock.withLock(() =>
      peerPush(s.store, { [THEIRS]: "theirs\n" }, {
        now: () => s.clock.now(),
        afterRead: async () => {
          read = true;
          await waitFor(() => done, { clock: s.clock, stepMs: 50 });
        },
      })
    ).finally(() => (clientDone = true));
    await waitFor(
      () =>
        read ||
        s.store.log.some((l) => l.op === "put" && l.key === GLOBAL && l.outcome === "error"),
      { clock: s.clock, stepMs: 50 },
    );
    releasedAtWrite = released;
  };
  s.store.resetLog();
  const run = s.svc.pushChanged().finally(() => (done = true));
  await waitFor(() => done && clientDone && released, { clock: s.clock, stepMs: 50 });
  assert.equal(await run, 1);
  assert.equal(step, undefined, "the transaction wrote the lockfile");
  assert.deepEqual(Object.keys(JSON.parse(s.store.peekText(LOCKFILE) ?? "{}")).sort(), [
    "@x/one",
    "@x/two",
  ]);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)).sort(), [LOCKFILE, THEIRS].sort());
  await assertIndexCurrent(s.store, { held: true });
  assert.equal(releasedAtWrite, false, "the step's release waited for the transaction's writes");
  assert.equal(s.store.peek(GLOBAL), undefined, "the global lock is released");
});
