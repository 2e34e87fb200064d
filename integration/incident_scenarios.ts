/**
 * The incident scenarios end to end against a real server, shared by the
 * MinIO and fake-gcs-server test files: each scenario runs with two (or three)
 * clones of one repository, each with its own cache directory, identity,
 * conditional-write registry and SDK client (made by the backend's provider
 * from the datastore config), sharing one fresh bucket. Clones made
 * `throughProxy` talk to the server through a loopback fault proxy the test
 * controls, so an outage is theirs alone.
 *
 * Every scenario runs twice: with the default gates (asserting no loss) and
 * with its gates removed (asserting the loss happens, which proves the
 * scenario is real):
 *
 * - 001 breakglass: A holds a model lock and writes version 1; an operator
 *   breaks the lock; B takes it, writes version 1 with other bytes and
 *   pushes. A's push is refused with `model_lock_lost` and B's bytes stay.
 * - 002 lock lost while unreachable: A's store goes unreachable mid-run and
 *   A's (third-party-style) lock then reads as absent, so A's push fails with
 *   `model_lock_lost`. After healing, a later plain sync from A pushes
 *   nothing of that run; B's data is intact.
 * - 000 double write: two clones write the same version N+1 without locks;
 *   the second push fails with `version_exists` and the first bytes stay.
 * - 004 stale lockfile: A's lockfile publish fails during an outage (kept as
 *   a pending delta); C adds an entry; A marks everything dirty and pushes;
 *   C's entry survives and A's retry lands beside it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SluiceError } from "../sync/errors.ts";
import { retryPendingLockfile, updateManagedLockfile } from "../sync/locks/lockfile_txn.ts";
import {
  acquireModelLocks,
  type ModelLockSetOptions,
  releaseLock,
} from "../sync/locks/model_locks.ts";
import { CREATE_ONLY_WRITER } from "../middleware/create_only_writer.ts";
import { LOCK_FENCE } from "../middleware/lock_fence.ts";
import { LOCKFILE_GUARD } from "../middleware/lockfile_guard.ts";
import { REFUSED_RUN_ERASER } from "../middleware/refused_run_eraser.ts";
import {
  openWorld,
  SCENARIO_LOCK,
  type ScenarioBackend,
  type ScenarioWorld,
} from "./scenario_world.ts";
import { absentOnError } from "../packages/testing/absent_on_error.ts";

/** Settles `p`; the error it rejected with, or null when it resolved. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  return await p.then(() => null, (e) => e);
}

function assertCode(e: unknown, code: string): void {
  assert.ok(e instanceof SluiceError, `expected a SluiceError ${code}, got ${String(e)}`);
  assert.equal(e.code, code, e.message);
}

const MODEL = "t/m";
const OTHER_MODEL = "t/other";
const versionDir = (n: number, model = MODEL) => `data/${model}/d/${n}`;
const versionFile = (n: number, model = MODEL) => `${versionDir(n, model)}/raw`;
const LOCKS: ModelLockSetOptions = { lock: SCENARIO_LOCK, globalPollMs: 50 };
const LOCKFILE = "config/upstream_extensions.json";

/** The gates each scenario's "off" run removes. */
export const SCENARIO_GATES = {
  breakglass: [LOCK_FENCE, REFUSED_RUN_ERASER, CREATE_ONLY_WRITER],
  lockLostUnreachable: [REFUSED_RUN_ERASER],
  doubleWrite: [CREATE_ONLY_WRITER],
  staleLockfile: [LOCKFILE_GUARD],
} as const;

type Scenario = (w: ScenarioWorld, gatesOn: boolean) => Promise<void>;

/** 001: a breakglass while A runs; B takes the lock and writes the same version. */
const breakglass: Scenario = async (w, on) => {
  const disable = on ? [] : SCENARIO_GATES.breakglass;
  const a = await w.clone("a", { disable });
  const b = await w.clone("b", { disable });
  assert.notEqual(a.service.cacheDir, b.service.cacheDir);
  const setA = await acquireModelLocks(a.service, [MODEL], LOCKS);
  let refused: unknown;
  try {
    await a.write(versionFile(1), "bytes of A");

    // The operator breaks A's lock from the other clone.
    const broken = await releaseLock(b.service, { model: MODEL, force: true });
    assert.equal(broken.released, true);
    assert.equal(broken.broken?.holder, a.identity.holder);

    const setB = await acquireModelLocks(b.service, [MODEL], LOCKS);
    try {
      await b.write(versionFile(1), "bytes of B");
      const pushedB = await setB.push([versionDir(1)]);
      assert.deepEqual(pushedB.uploaded, [versionFile(1)]);
    } finally {
      await setB.release();
    }

    refused = await outcome(setA.push([versionDir(1)]));
  } finally {
    await setA.release();
  }
  const remote = await w.remote(versionFile(1));
  if (!on) {
    assert.equal(refused, null, `with the gates off A's push should succeed: ${String(refused)}`);
    assert.equal(remote, "bytes of A", "the loss did not happen with the gates off");
    return;
  }
  assertCode(refused, "model_lock_lost");
  // The refused run's own version left A's cache (at most B's copy came back by the refresh).
  assert.notEqual(await a.readLocal(versionFile(1)), "bytes of A");
  assert.equal(remote, "bytes of B", "A's refused run overwrote B's version");
};

/** 002: the store goes unreachable for A mid-run; A's lock then reads as absent. */
const lockLostUnreachable: Scenario = async (w, on) => {
  const disable = on ? [] : SCENARIO_GATES.lockLostUnreachable;
  const a = await w.clone("a", { throughProxy: true, disable });
  const b = await w.clone("b", { disable });

  // B publishes version 1 under the lock first.
  const setB = await acquireModelLocks(b.service, [MODEL], LOCKS);
  try {
    await b.write(versionFile(1), "version 1 of B");
    await setB.push([versionDir(1)]);
  } finally {
    await setB.release();
  }

  const setA = await acquireModelLocks(a.service, [MODEL], LOCKS);
  assert.ok(setA.preexisting.has(versionDir(1)), "A's scoped pull did not bring B's version 1");
  let refused: unknown;
  try {
    await a.write(versionFile(2), "version 2 of A's refused run");

    await w.proxy.cut();
    const cutAtStart = w.proxy.stats.cut;
    refused = await outcome(
      a.service.pushChanged({
        locks: setA.locks.map(absentOnError),
        written: [versionDir(2)],
        preexisting: setA.preexisting,
        models: setA.models,
      }),
    );
    assert.ok(w.proxy.stats.cut > cutAtStart, "A's push never met the outage");
    // The outage is A's alone: B still reads and writes the store directly.
    await b.write(versionFile(1, OTHER_MODEL), "B works during A's outage");
    assert.deepEqual((await b.service.pushChanged()).uploaded, [versionFile(1, OTHER_MODEL)]);
    assert.equal(await w.remote(versionFile(2)), null, "A's refused run reached the store");
    await w.proxy.heal();
  } finally {
    await w.proxy.heal();
    await setA.release();
  }
  assertCode(refused, "model_lock_lost");

  // Later, a plain sync from A.
  const later = await outcome(a.service.pushChanged());
  const remote = await w.remote(versionFile(2));
  if (!on) {
    assert.equal(later, null, String(later));
    assert.equal(
      remote,
      "version 2 of A's refused run",
      "the loss did not happen with the gate off",
    );
    return;
  }
  assert.equal(later, null, `A's plain sync failed: ${String(later)}`);
  assert.equal(remote, null, "a later plain sync pushed the refused run's data");
  assert.equal(
    await a.readLocal(versionFile(2)),
    null,
    "the refused run's data stayed in A's cache",
  );
  assert.equal(await w.remote(versionFile(1)), "version 1 of B", "B's version 1 changed");
  assert.equal(await w.remote(versionFile(1, OTHER_MODEL)), "B works during A's outage");
};

/** 000: two clones allocate the same version N+1 without locks. */
const doubleWrite: Scenario = async (w, on) => {
  const disable = on ? [] : SCENARIO_GATES.doubleWrite;
  const a = await w.clone("a", { disable });
  const b = await w.clone("b", { disable });
  await a.write(versionFile(1), "first, from A");
  await b.write(versionFile(1), "second, from B");
  const pushedA = await a.service.pushChanged();
  assert.deepEqual(pushedA.uploaded, [versionFile(1)]);

  const second = await outcome(b.service.pushChanged());
  if (!on) {
    assert.equal(second, null, String(second));
    assert.equal(
      await w.remote(versionFile(1)),
      "second, from B",
      "no overwrite with the gate off",
    );
    return;
  }
  assertCode(second, "version_exists");
  assert.equal(await w.remote(versionFile(1)), "first, from A");

  // Re-publishing A's own bytes is not a conflict.
  await a.write(versionFile(1), "first, from A");
  await a.service.pushChanged();
  assert.equal(await w.remote(versionFile(1)), "first, from A");
};

/** 004: a failed lockfile publish leaves a stale local copy; a bulk push must not re-upload it. */
const staleLockfile: Scenario = async (w, on) => {
  const disable = on ? [] : SCENARIO_GATES.staleLockfile;
  const a = await w.clone("a", { throughProxy: true, disable });
  const c = await w.clone("c", { disable });
  const remoteEntries = async () =>
    Object.keys(JSON.parse((await w.remote(LOCKFILE)) ?? "{}")).sort();

  await updateManagedLockfile(c.service, { set: { "@acme/ssh": { version: "2.0.0" } } });
  await a.service.pullChanged();
  assert.ok((await a.readLocal(LOCKFILE))?.includes("@acme/ssh"));

  await w.proxy.cut();
  const cutAtStart = w.proxy.stats.cut;
  const failed = await outcome(
    updateManagedLockfile(a.service, { set: { "@acme/1password": { version: "1.0.0" } } }),
  );
  assert.ok(w.proxy.stats.cut > cutAtStart, "A's publish never met the outage");
  await w.proxy.heal();
  assertCode(failed, "lockfile_publish_failed");
  assert.deepEqual(await remoteEntries(), ["@acme/ssh"], "A's failed publish reached the store");

  await updateManagedLockfile(c.service, { set: { "@acme/k8s": { version: "3.0.0" } } });

  // A runs a command that marks everything dirty and pushes.
  await a.service.markDirty();
  const bulk = await outcome(a.service.pushChanged());
  assert.equal(bulk, null, `A's bulk push failed: ${String(bulk)}`);
  const afterBulk = await remoteEntries();
  if (!on) {
    assert.deepEqual(afterBulk, ["@acme/1password", "@acme/ssh"], "no loss with the gate off");
    await retryPendingLockfile(a.service);
    assert.ok(!(await remoteEntries()).includes("@acme/k8s"), "the retry brought C's entry back");
    return;
  }
  assert.deepEqual(afterBulk, ["@acme/k8s", "@acme/ssh"], "A's bulk push changed the lockfile");

  const retried = await retryPendingLockfile(a.service);
  assert.ok(retried?.published, "A's retry did not publish");
  assert.deepEqual(await remoteEntries(), ["@acme/1password", "@acme/k8s", "@acme/ssh"]);
  assert.deepEqual(Object.keys(retried.entries).sort(), await remoteEntries());
  assert.equal(await retryPendingLockfile(a.service), null, "a delta stayed pending");
};

const SCENARIOS: readonly { title: string; gates: readonly string[]; run: Scenario }[] = [
  {
    title: "001 breakglass: A's push is refused with model_lock_lost; B's bytes stay",
    gates: SCENARIO_GATES.breakglass,
    run: breakglass,
  },
  {
    title:
      "002 lock lost while unreachable: A fails model_lock_lost; a later plain sync pushes nothing of it",
    gates: SCENARIO_GATES.lockLostUnreachable,
    run: lockLostUnreachable,
  },
  {
    title: "000 double write of version N+1: the second push gets version_exists",
    gates: SCENARIO_GATES.doubleWrite,
    run: doubleWrite,
  },
  {
    title: "004 stale lockfile: C's entry survives A's bulk push; A's retry lands beside it",
    gates: SCENARIO_GATES.staleLockfile,
    run: staleLockfile,
  },
];

/**
 * Registers the incident scenarios against `backend` as `Deno.test`s: each
 * scenario with the default gates (no loss) and with its gates off (the loss
 * happens), plus the provider's health check. Register the test that stops
 * the backend's server after this call.
 *
 * @example
 * ```ts
 * import { incidentScenarios } from "./incident_scenarios.ts";
 * import type { ScenarioBackend } from "./scenario_world.ts";
 * async function _example(backend: ScenarioBackend) {
 *   incidentScenarios(backend);
 * }
 * ```
 */
export function incidentScenarios(backend: ScenarioBackend): void {
  // Real SDK clients keep sockets and timers alive between calls.
  const common = { ignore: backend.ignore, sanitizeOps: false, sanitizeResources: false };
  for (const s of SCENARIOS) {
    for (const on of [true, false]) {
      Deno.test({
        ...common,
        name: on
          ? `${backend.label} incident ${s.title}`
          : `${backend.label} incident ${s.title.slice(0, 3)} with ${
            s.gates.join(", ")
          } off: the loss happens`,
        fn: async () => {
          const w = await openWorld(backend);
          try {
            await s.run(w, on);
          } finally {
            await w.dispose();
          }
        },
      });
    }
  }
  Deno.test({
    ...common,
    name:
      `${backend.label}: the provider's verifier reports latency and honoured conditional writes`,
    fn: async () => {
      const w = await openWorld(backend);
      try {
        const a = await w.clone("a");
        const r = await a.provider.createVerifier().verify();
        assert.equal(r.ok, true, r.message);
        assert.ok(r.latencyMs >= 0);
        assert.equal(r.conditionalWrites?.create, "honoured");
        assert.equal(r.conditionalWrites?.update, "honoured");
      } finally {
        await w.dispose();
      }
    },
  });
}
