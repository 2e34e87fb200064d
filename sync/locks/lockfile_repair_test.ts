import assert from "node:assert/strict";
import { repairManagedLockfile } from "./lockfile_repair.ts";
import {
  MANAGED_LOCKFILE_PATH,
  pendingLockfileDelta,
  updateManagedLockfile,
} from "./lockfile_txn.ts";
import { createSyncService, type SyncService } from "../service/service.ts";
import { storeLockBackend } from "./lock_engine.ts";
import { INDEX_KEY } from "../transfer/remote_index.ts";
import { LockfileRemoteMalformedError } from "../lock_errors.ts";
import type { PutMode, PutOptions } from "../ports.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";

const LOCKFILE = MANAGED_LOCKFILE_PATH;
const BROKEN = '{"@acme/ssh": {"version": "2.0.0"},, <<<<<<< HEAD';

/** A store that records put modes and runs a hook right before the next put of a key. */
class HookStore extends InMemoryStore {
  beforePut?: { key: string; run: () => void; times: number };
  readonly modes: { key: string; mode: PutMode }[] = [];
  override async put(key: string, body: Uint8Array, mode: PutMode, options?: PutOptions) {
    this.modes.push({ key, mode });
    const hook = this.beforePut;
    if (hook && hook.key === key && hook.times > 0) {
      hook.times--;
      hook.run();
    }
    return await super.put(key, body, mode, options);
  }
}

async function clone(store: InMemoryStore, name: string, clock: FakeClock): Promise<SyncService> {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-repair-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    lockBackend: storeLockBackend(store, { clock }),
  });
}

const names = (store: InMemoryStore) => Object.keys(JSON.parse(store.peekText(LOCKFILE)!)).sort();

/**
 * A shares the lockfile with C (entries X and Y), the remote copy then turns
 * malformed, and A's next change (Z) fails and stays pending.
 */
async function brokenRemote(store: InMemoryStore, clock: FakeClock) {
  const a = await clone(store, "a", clock);
  const c = await clone(store, "c", clock);
  await updateManagedLockfile(a, { set: { X: { version: "1.0.0" } } });
  await updateManagedLockfile(c, { set: { Y: { version: "1.0.0" } } });
  await a.pullChanged();
  const bad = store.seed(LOCKFILE, BROKEN);
  const err = await updateManagedLockfile(a, { set: { Z: { version: "3.0.0" } } }).catch((e) => e);
  return { a, c, bad, err };
}

Deno.test("a malformed remote lockfile fails with its own code, says what is wrong and keeps the delta", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const { a, bad, err } = await brokenRemote(store, clock);
  assert.ok(err instanceof LockfileRemoteMalformedError, String(err));
  assert.equal(err.code, "lockfile_remote_malformed");
  assert.equal(err.exitCode, 65);
  assert.equal(err.retryable, false);
  assert.equal(err.version, bad.version);
  assert.match(err.message, /not a JSON object of entries: .*JSON/);
  assert.ok(err.message.includes(`it begins ${JSON.stringify(BROKEN)}`), err.message);
  assert.match(err.message, /set Z\) is kept as a pending delta/);
  assert.match(err.message, /`sluice lockfile repair --dry-run`/);
  assert.match(err.message, /`sluice lockfile repair`/);
  assert.equal(store.peekText(LOCKFILE), BROKEN, "the remote copy was left as it is");
  assert.deepEqual(await pendingLockfileDelta(a), { set: { Z: { version: "3.0.0" } }, remove: [] });
  assert.equal(store.peek(".datastore.lock"), undefined, "the global lock is released");
});

Deno.test("repair republishes the last good copy with the pending delta and sets the bad bytes aside", async () => {
  const clock = new FakeClock();
  const store = new HookStore({ clock });
  const { a, c, bad } = await brokenRemote(store, clock);
  store.modes.length = 0;
  const r = await repairManagedLockfile(a);
  assert.equal(r.outcome, "repaired");
  assert.equal(r.published, true);
  assert.equal(r.base, "local", "the cache copy shows the pending change on the synced copy");
  assert.equal(r.problem?.version, bad.version);
  assert.equal(r.problem?.size, BROKEN.length);
  assert.match(r.problem?.problem ?? "", /JSON/);
  assert.deepEqual(names(store), ["X", "Y", "Z"], "C's entry from the last good copy is kept");
  assert.deepEqual(
    store.modes.filter((m) => m.key === LOCKFILE).map((m) => m.mode),
    [{ kind: "update", version: bad.version }],
    "one compare-and-swap on the malformed copy's version",
  );
  assert.equal(r.setAside.length, 1);
  assert.match(
    r.setAside[0],
    /^\.sluice\/set-aside\/.+-remote-.+\/config\/upstream_extensions\.json$/,
  );
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${r.setAside[0]}`), BROKEN);
  const reason = JSON.parse(
    await Deno.readTextFile(`${a.cacheDir}/${r.setAside[0].slice(0, -LOCKFILE.length)}REASON.json`),
  );
  assert.equal(reason.path, LOCKFILE);
  assert.match(reason.reason, /malformed/);
  assert.equal(await pendingLockfileDelta(a), null, "the pending delta is cleared");
  assert.equal(a.state.synced(LOCKFILE)?.version, r.version);
  assert.equal(JSON.parse(store.peekText(INDEX_KEY)!).entries[LOCKFILE].sluice.v, r.version);
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${LOCKFILE}`), store.peekText(LOCKFILE));
  assert.equal(store.peek(".datastore.lock"), undefined);
  // Transactions work again, for every checkout.
  await updateManagedLockfile(c, { set: { W: 1 } });
  assert.deepEqual(names(store), ["W", "X", "Y", "Z"]);
});

Deno.test("repair leaves a peer's valid rewrite in place and applies only the pending delta to it", async () => {
  const clock = new FakeClock();
  const store = new HookStore({ clock });
  const { a } = await brokenRemote(store, clock);
  const peer = JSON.stringify({ P: { version: "9.0.0" } });
  // Between the repair's read and its publish, a peer replaces the bad copy.
  store.beforePut = { key: LOCKFILE, times: 1, run: () => void store.seed(LOCKFILE, peer) };
  const r = await repairManagedLockfile(a);
  assert.equal(r.outcome, "peer_repaired");
  assert.equal(r.attempts, 2);
  assert.equal(r.published, true);
  assert.deepEqual(names(store), ["P", "Z"], "the peer's copy won; only the pending Z was added");
  assert.equal(r.setAside.length, 1, "the malformed bytes read first are still kept");
  assert.equal(await pendingLockfileDelta(a), null);
});

Deno.test("a dry run shows the problem and what would be published, and writes nothing", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const { a } = await brokenRemote(store, clock);
  const localBefore = await Deno.readTextFile(`${a.cacheDir}/${LOCKFILE}`);
  store.resetLog();
  const r = await repairManagedLockfile(a, { dryRun: true });
  assert.equal(r.outcome, "would_repair");
  assert.equal(r.dryRun, true);
  assert.equal(r.published, false);
  assert.deepEqual(Object.keys(r.entries).sort(), ["X", "Y", "Z"]);
  assert.match(r.problem?.preview ?? "", /^\{"@acme\/ssh"/);
  assert.deepEqual(r.pending, { set: { Z: { version: "3.0.0" } }, remove: [] });
  assert.deepEqual(r.setAside, []);
  assert.deepEqual(store.log.filter((l) => l.op !== "get").map((l) => `${l.op} ${l.key}`), []);
  assert.equal(store.peekText(LOCKFILE), BROKEN);
  assert.ok(await pendingLockfileDelta(a));
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${LOCKFILE}`), localBefore);
  await assert.rejects(Deno.stat(`${a.cacheDir}/.sluice/set-aside`), Deno.errors.NotFound);
});

Deno.test("repair of a readable lockfile publishes only a pending delta, and with none writes nothing", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  await updateManagedLockfile(a, { set: { X: 1 } });
  store.resetLog();
  const idle = await repairManagedLockfile(a);
  assert.equal(idle.outcome, "healthy");
  assert.equal(idle.problem, null);
  assert.equal(idle.published, false);
  assert.equal(store.count("put"), 1, "only the global lock was written");
  store.unreachable = true;
  await assert.rejects(updateManagedLockfile(a, { set: { Y: 1 } }), /pending delta/);
  store.unreachable = false;
  const r = await repairManagedLockfile(a);
  assert.equal(r.outcome, "healthy");
  assert.equal(r.published, true);
  assert.deepEqual(names(store), ["X", "Y"]);
  assert.equal(await pendingLockfileDelta(a), null);
});
