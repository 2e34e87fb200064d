/**
 * The extension beside old clients (`oldClients: true`): the tool's
 * two-phase push whose preparation loses its data version (changed here
 * since its upload, whose commit was cut off: a data version is never
 * rewritten) throws `version_exists` with no commit to come. The version's
 * `latest` marker is reset here, and this cache's upload of it, written over
 * the committed one, is taken back: the committed bytes put back and named
 * in the index. That index write is made under the global lock (the tool
 * holds none during a preparation), so that an old client's read-modify-write
 * of the index, from a read made before, does not put back the entry naming
 * the version the upload replaced, which the store no longer holds.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { peerPush, peerReadIndex, type PutHook, waitFor } from "../testing/mod.ts";
import { VersionConflictError } from "../../sync/errors.ts";
import { assertIndexCurrent } from "../../sync/service/clone_kit.ts";
import { GLOBAL, oldClientsTool, otherStepThenOldClient } from "./old_clients_kit.ts";

const THEIRS = "files/theirs.txt";
const D = "data/t/m/out";
const MARKER = `${D}/latest`;

async function setup(before?: PutHook) {
  const { store, clock, svc, svcProvider: provider, oldClientLock, cache } = await oldClientsTool(
    createSluice,
    true,
    "sluice-ext-lost-marker-",
    before,
  );
  const write = async (rel: string, text: string) => {
    await Deno.mkdir(`${cache}/${rel.slice(0, rel.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${cache}/${rel}`, text);
    await svc.markDirty({ relPath: rel });
  };
  return { store, clock, svc, provider, oldClientLock, cache, write };
}

/**
 * Version 1 pushed; version 2 and the marker naming it uploaded (the marker
 * over the committed one), the commit cut off; version 2 changed here since:
 * its next push loses it (a data version is never rewritten).
 */
async function loseVersion2(s: Awaited<ReturnType<typeof setup>>) {
  await s.write(`${D}/1/raw`, "v1");
  await s.write(`${D}/1/metadata.yaml`, "version: 1");
  await s.write(MARKER, "1");
  await s.svc.pushChanged();
  await s.write(`${D}/2/raw`, "v2");
  await s.write(`${D}/2/metadata.yaml`, "version: 2");
  await s.write(MARKER, "2");
  s.store.failNext("put", 50, undefined, {
    match: (k) => k === ".datastore-index.json" || k.startsWith("_index/"),
  });
  await assert.rejects(s.svc.pushChanged());
  s.store.heal();
  assert.equal(s.store.peekText(MARKER), "2", "the marker upload landed");
  await s.write(`${D}/2/raw`, "v2 changed");
}

Deno.test("extension, oldClients: a preparation that throws its lost version takes its marker upload back under the global lock, outside an old client's index rewrite", async () => {
  const s = await setup();
  await loseVersion2(s);
  // The tool's flush prepares under its model lock only, while an old client
  // holds the global lock, between its read of the index and its write.
  let done = false;
  let run: Promise<unknown> = Promise.resolve();
  s.store.resetLog();
  await s.oldClientLock.withLock(() =>
    peerPush(s.store, { [THEIRS]: "theirs\n" }, {
      now: () => s.clock.now(),
      afterRead: async () => {
        run = s.svc.preparePush({ context: { models: [{ modelType: "t", modelId: "m" }] } })
          .then(() => undefined, (e) => e).finally(() => (done = true));
        await waitFor(
          () =>
            done ||
            s.store.log.some((l) => l.op === "put" && l.key === GLOBAL && l.outcome === "error"),
          { clock: s.clock, stepMs: 50 },
        );
        assert.equal(done, false, "the take-back waits for the old client's lock");
      },
    })
  );
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  const error = await run;
  assert.ok(error instanceof VersionConflictError, String(error));
  assert.equal(await Deno.readTextFile(`${s.cache}/${MARKER}`), "1");
  assert.ok(Object.hasOwn(await peerReadIndex(s.store), THEIRS), "the old client's entry stays");
  assert.equal(s.store.peekText(MARKER), "1", "the committed marker is put back");
  await assertIndexCurrent(s.store, { held: true });
  assert.equal(s.store.peek(GLOBAL), undefined, "the global lock is released");
});

Deno.test("extension, oldClients: a preparation that throws its lost version while the global lock stays held past its wait leaves the take-back undone and throws its loss", async () => {
  const s = await setup();
  await loseVersion2(s);
  const index = JSON.stringify(await peerReadIndex(s.store));
  await s.oldClientLock.acquire();
  let done = false;
  const run = s.svc.preparePush({ context: { models: [{ modelType: "t", modelId: "m" }] } })
    .then(() => undefined, (e) => e).finally(() => (done = true));
  // The fake clock runs on until the lock's wait gives up however slow the
  // real file work before that wait is (a busy machine): the outcome is the
  // same at any point past the wait.
  await waitFor(() => done, {
    clock: s.clock,
    stepMs: 100,
    timeoutMs: 600_000,
    realTimeoutMs: 60_000,
  });
  const error = await run;
  await s.oldClientLock.release();
  assert.ok(error instanceof VersionConflictError, String(error));
  assert.equal(await Deno.readTextFile(`${s.cache}/${MARKER}`), "1");
  // Nothing written outside the lock: the upload and the index as they were.
  assert.equal(s.store.peekText(MARKER), "2");
  assert.equal(JSON.stringify(await peerReadIndex(s.store)), index);
  assert.equal(s.store.peek(GLOBAL), undefined);
});

Deno.test("extension, oldClients: a preparation that starts while another step's commit holds the global lock, released before its loss, still takes its marker upload back under the lock", async () => {
  // Another step of the workflow commits under the global lock while this
  // step prepares; its commit ends (the lock released) and an old client
  // takes the lock and reads the index before this preparation loses its
  // version.
  let step: (() => Promise<void>) | undefined;
  const s = await setup(async (key) => {
    if (key !== `${D}/2/raw` || !step) return;
    const go = step;
    step = undefined;
    await go();
  });
  await loseVersion2(s);
  const other = await otherStepThenOldClient(s, s.provider, { [THEIRS]: "theirs\n" });
  step = other.step;
  const race = other.race;
  s.store.resetLog();
  const run = s.svc.preparePush({ context: { models: [{ modelType: "t", modelId: "m" }] } })
    .then(() => undefined, (e) => e).finally(() => (race.done = true));
  await waitFor(() => race.done, { clock: s.clock, stepMs: 50, timeoutMs: 20_000 });
  await race.oldClient;
  const error = await run;
  assert.ok(error instanceof VersionConflictError, String(error));
  assert.equal(step, undefined, "the old client read the index during the preparation");
  assert.ok(Object.hasOwn(await peerReadIndex(s.store), THEIRS), "the old client's entry stays");
  assert.equal(s.store.peekText(MARKER), "1", "the committed marker is put back");
  await assertIndexCurrent(s.store, { held: true });
  assert.equal(s.store.peek(GLOBAL), undefined, "the global lock is released");
});

Deno.test("extension, oldClients: a marker take-back a preparation left undone (the global lock not had in time) is made by the next push", async () => {
  const s = await setup();
  await loseVersion2(s);
  await s.oldClientLock.acquire();
  let done = false;
  const run = s.svc.preparePush({ context: { models: [{ modelType: "t", modelId: "m" }] } })
    .then(() => undefined, (e) => e).finally(() => (done = true));
  await waitFor(() => done, { clock: s.clock, stepMs: 100, timeoutMs: 20_000 });
  assert.ok((await run) instanceof VersionConflictError);
  await s.oldClientLock.release();
  assert.equal(s.store.peekText(MARKER), "2", "left undone");
  await s.svc.pushChanged();
  assert.equal(s.store.peekText(MARKER), "1", "this cache's upload of the marker taken back");
  await assertIndexCurrent(s.store, { held: true });
  assert.equal(s.store.peek(GLOBAL), undefined);
});
