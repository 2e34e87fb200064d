/**
 * The four incidents replayed through the tool's call sequence
 * (`swamp_replay.ts`) against the Sluice datastore extensions. Each runs with
 * every gate on (no loss) and with its matching gate(s) off through the
 * extension's test-only switch (the loss happens, which proves the replay
 * reaches it):
 *
 * - 001 breakglass: A's model run has written version 1 when an operator
 *   breaks A's model lock; B runs the same model, writes its own version 1
 *   and pushes. A's flush is refused with `model_lock_lost`, A's version
 *   leaves A's cache, B's bytes stay. Off: lock-fence, refused-run-eraser,
 *   create-only-writer.
 * - 002 lock lost while unreachable: B has pushed version 1; A's run writes
 *   version 2, then A's store goes unreachable, and A's lock (a third-party
 *   style lock that reports a failed read as "absent") reads as absent. A's
 *   flush is refused and the refresh fails; after healing, A's
 *   `datastore sync` pushes nothing of the refused run. Off: refused-run-eraser.
 * - 000 a version overwritten by a second writer: the window the fence
 *   cannot close. A's lock check reads "still ours", and before A's upload
 *   the operator breaks the lock and B runs and publishes the same version.
 *   A's upload gets `version_exists`; B's bytes stay. Off: create-only-writer.
 * - 004 stale lockfile: A's publish of a lockfile entry fails during an
 *   outage (kept as a pending delta); C adds an entry; A runs a bulk-push
 *   command (`markDirty()`, `pushChanged()`). C's entry survives and A's
 *   entry lands beside it. Off: lockfile-guard.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SluiceError } from "../sync/errors.ts";
import { LockBackendRegistry, storeLockFactory } from "../sync/locks/lock_registry.ts";
import type { DistributedLock, LockBackend } from "../sync/ports.ts";
import { MANAGED_LOCKFILE_PATH } from "../sync/locks/lockfile_txn.ts";
import { CREATE_ONLY_WRITER } from "../middleware/create_only_writer.ts";
import { LOCK_FENCE } from "../middleware/lock_fence.ts";
import { LOCKFILE_GUARD } from "../middleware/lockfile_guard.ts";
import { REFUSED_RUN_ERASER } from "../middleware/refused_run_eraser.ts";
import { absentOnError } from "../packages/testing/absent_on_error.ts";
import {
  breakglass,
  bulkPushCommand,
  dataDir,
  datastoreSync,
  type FlushMode,
  type Host,
  type ReplayWorld,
  runModelMethod,
  structuralCommand,
} from "./swamp_replay.ts";

/** The model every incident runs. */
export const MODEL = { modelType: "command/shell", modelId: "m1" };
const MODEL_NAME = `${MODEL.modelType}/${MODEL.modelId}`;
const OUT = dataDir(MODEL, "out");
const raw = (n: number) => `${OUT}/${n}/raw`;

/** The gates each incident's "off" run removes. */
export const REPLAY_GATES = {
  "001": [LOCK_FENCE, REFUSED_RUN_ERASER, CREATE_ONLY_WRITER],
  "002": [REFUSED_RUN_ERASER],
  "000": [CREATE_ONLY_WRITER],
  "004": [LOCKFILE_GUARD],
} as const;

/** Settles `p`: the error it rejected with, or null. */
export async function outcome(p: Promise<unknown>): Promise<unknown> {
  return await p.then(() => null, (e) => e);
}

/** Asserts `e` is a Sluice error with `code`. */
export function assertCode(e: unknown, code: string): void {
  assert.ok(e instanceof SluiceError, `expected a SluiceError ${code}, got ${String(e)}`);
  assert.equal(e.code, code, e.message);
}

/** Lock backends whose `store` locks are wrapped by `wrap`. */
function wrappedLocks(wrap: (lock: DistributedLock) => DistributedLock): LockBackendRegistry {
  return new LockBackendRegistry().register("store", (ctx): LockBackend => {
    const inner = storeLockFactory(ctx);
    return { name: inner.name, createLock: (k, id, o) => wrap(inner.createLock(k, id, o)) };
  });
}

/**
 * A lock whose next `inspect` reads the lock, then runs `race.armed` before
 * answering with what it read: the answer is in flight while others act.
 */
function racing(lock: DistributedLock, race: { armed?: () => Promise<void> }): DistributedLock {
  return {
    key: lock.key,
    get nonce() {
      return lock.nonce;
    },
    get lost() {
      return lock.lost;
    },
    get loss() {
      return lock.loss;
    },
    acquire: (o) => lock.acquire(o),
    release: () => lock.release(),
    withLock: (fn, o) => lock.withLock(fn, o),
    async inspect(o) {
      const info = await lock.inspect(o);
      const hook = race.armed;
      race.armed = undefined;
      await hook?.();
      return info;
    },
    forceRelease: (n) => lock.forceRelease(n),
  };
}

/** An incident replay: `on` is true with every gate, false with its gates off. */
export type Incident = (w: ReplayWorld, on: boolean, flush: FlushMode) => Promise<void>;

const off = (on: boolean, id: keyof typeof REPLAY_GATES) => on ? [] : [...REPLAY_GATES[id]];

/** 001: a breakglass while A runs; B runs the same model and writes the same version. */
export const breakglassIncident: Incident = async (w, on, flush) => {
  const a = await w.host("a", { disable: off(on, "001") });
  const b = await w.host("b", { disable: off(on, "001") });
  const op = await w.host("op");
  const refused = await outcome(runModelMethod(a, MODEL, async (run) => {
    assert.equal(await run.saveVersion("out", "bytes of A"), 1);
    assert.equal(await breakglass(op, MODEL_NAME), true);
    const n = await runModelMethod(b, MODEL, (r) => r.saveVersion("out", "bytes of B"), { flush });
    assert.equal(n, 1, "B did not allocate the same version");
  }, { flush }));
  const remote = await w.remote(raw(1));
  if (!on) {
    assert.equal(refused, null, `with the gates off A's flush should succeed: ${String(refused)}`);
    assert.equal(remote, "bytes of A", "the loss did not happen with the gates off");
    return;
  }
  assertCode(refused, "model_lock_lost");
  assert.notEqual(await a.read(raw(1)), "bytes of A", "A's refused version stayed in its cache");
  assert.equal(remote, "bytes of B", "A's refused run overwrote B's version");
  // Later syncs of A push nothing of the refused run.
  await datastoreSync(a);
  assert.equal(await w.remote(raw(1)), "bytes of B");
  assert.equal(await w.remote(`${OUT}/latest`), "1");
};

/** 002: A's store goes unreachable mid-run and A's lock then reads as absent. */
export const unreachableIncident: Incident = async (w, on, flush) => {
  const a = await w.host("a", {
    throughProxy: true,
    disable: off(on, "002"),
    lockRegistry: wrappedLocks(absentOnError),
  });
  const b = await w.host("b", { disable: off(on, "002") });
  await runModelMethod(b, MODEL, (r) => r.saveVersion("out", "version 1 of B"), { flush });
  let cutAt = 0;
  const refused = await outcome(runModelMethod(a, MODEL, async (run) => {
    assert.equal(await a.read(raw(1)), "version 1 of B", "A's scoped pull missed B's version");
    assert.equal(await run.saveVersion("out", "version 2 of A's refused run"), 2);
    await w.proxy.cut();
    cutAt = w.proxy.stats.cut;
  }, { flush }));
  assert.ok(w.proxy.stats.cut > cutAt, "A's flush never met the outage");
  await w.proxy.heal();
  assertCode(refused, "model_lock_lost");
  assert.equal(await w.remote(raw(2)), null, "A's refused run reached the store");

  // Later, A's `datastore sync` (under the global lock only).
  const later = await outcome(datastoreSync(a));
  assert.equal(later, null, `A's datastore sync failed: ${String(later)}`);
  const remote = await w.remote(raw(2));
  if (!on) {
    assert.equal(
      remote,
      "version 2 of A's refused run",
      "the loss did not happen with the gate off",
    );
    return;
  }
  assert.equal(remote, null, "a later sync pushed the refused run's data");
  assert.equal(await a.read(raw(2)), null, "the refused run's data stayed in A's cache");
  assert.equal(await w.remote(raw(1)), "version 1 of B");
  assert.equal(await w.remote(`${OUT}/latest`), "1");
};

/** 000: B publishes the same version between A's lock check and A's upload. */
export const doubleWriteIncident: Incident = async (w, on, flush) => {
  const race: { armed?: () => Promise<void> } = {};
  const a = await w.host("a", {
    disable: off(on, "000"),
    lockRegistry: wrappedLocks((l) => racing(l, race)),
  });
  const b = await w.host("b", { disable: off(on, "000") });
  const op = await w.host("op");
  const result = await outcome(runModelMethod(a, MODEL, async (run) => {
    assert.equal(await run.saveVersion("out", "first, from A"), 1);
    // The fence's read of A's lock answers "still yours" while this happens.
    race.armed = async () => {
      assert.equal(await breakglass(op, MODEL_NAME), true);
      await runModelMethod(b, MODEL, (r) => r.saveVersion("out", "second, from B"), { flush });
    };
  }, { flush }));
  assert.equal(race.armed, undefined, "A's flush never checked its lock");
  const remote = await w.remote(raw(1));
  if (!on) {
    // A's upload replaced B's version; the fence's second check then refused A
    // and its eraser deleted that upload: B's version 1 is gone either way.
    assert.notEqual(remote, "second, from B", "the loss did not happen with the gate off");
    return;
  }
  assertCode(result, "version_exists");
  assert.equal(remote, "second, from B", "B's version was overwritten");
};

/** 004: a failed lockfile publish, a peer's entry, then a bulk push of the stale copy. */
export const staleLockfileIncident: Incident = async (w, on) => {
  const a = await w.host("a", { throughProxy: true, disable: off(on, "004") });
  const c = await w.host("c", { disable: off(on, "004") });
  const entries = async () =>
    Object.keys(JSON.parse((await w.remote(MANAGED_LOCKFILE_PATH)) ?? "{}")).sort();
  const addEntry = (host: Host, name: string, cut = false) =>
    structuralCommand(host, async (svc) => {
      const now = JSON.parse((await host.read(MANAGED_LOCKFILE_PATH)) ?? "{}");
      await svc.markDirty({ relPath: MANAGED_LOCKFILE_PATH });
      await host.write(
        MANAGED_LOCKFILE_PATH,
        JSON.stringify({ ...now, [name]: { version: "1.0.0" } }),
      );
      if (cut) await w.proxy.cut();
    });

  assert.equal((await addEntry(c, "@acme/ssh")).pushError, null);
  const failed = await addEntry(a, "@acme/1password", true);
  await w.proxy.heal();
  assert.ok(failed.pushError, "A's publish did not fail during the outage");
  assert.deepEqual(await entries(), ["@acme/ssh"], "A's failed publish reached the store");

  assert.equal((await addEntry(c, "@acme/k8s")).pushError, null);
  assert.deepEqual(await entries(), ["@acme/k8s", "@acme/ssh"]);

  // A runs a command that marks everything dirty and pushes (no lock, no pull).
  await bulkPushCommand(a, (svc) => {
    return svc.markDirty({ relPath: "auto-definitions/command/shell/m1.yaml" }).then(() =>
      a.write("auto-definitions/command/shell/m1.yaml", "name: m1\n")
    );
  });
  const after = await entries();
  if (!on) {
    assert.ok(!after.includes("@acme/k8s"), "the loss did not happen with the gate off");
    return;
  }
  assert.deepEqual(after, ["@acme/1password", "@acme/k8s", "@acme/ssh"]);
  assert.equal(await w.remote("auto-definitions/command/shell/m1.yaml"), "name: m1\n");
};

/** The incidents in the story's order, with their titles. */
export const INCIDENTS: readonly { id: keyof typeof REPLAY_GATES; title: string; run: Incident }[] =
  [
    {
      id: "001",
      title: "breakglass: A's flush is refused with model_lock_lost; B's bytes stay",
      run: breakglassIncident,
    },
    {
      id: "002",
      title: "lock lost while unreachable: A's later datastore sync pushes nothing of the run",
      run: unreachableIncident,
    },
    {
      id: "000",
      title: "same version between A's lock check and upload: version_exists, B's bytes stay",
      run: doubleWriteIncident,
    },
    {
      id: "004",
      title: "stale lockfile: C's entry survives A's bulk push; A's entry lands beside it",
      run: staleLockfileIncident,
    },
  ];
