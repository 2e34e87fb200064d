/**
 * A pull that takes a managed lockfile an existing client wrote as a plain
 * copy (no transaction), lacking entries this cache's copy listed, says
 * which, with each entry; one a Sluice transaction wrote says nothing.
 */
import assert from "node:assert/strict";
import { createSyncService, type SyncService } from "./service.ts";
import { MANAGED_LOCKFILE_PATH, updateManagedLockfile } from "../locks/lockfile_txn.ts";
import { storeLockBackend } from "../locks/lock_engine.ts";
import type { WarningEvent } from "../events.ts";
import { FakeClock, InMemoryStore, peerPush } from "../../packages/testing/mod.ts";

const LOCKFILE = MANAGED_LOCKFILE_PATH;

async function clone(store: InMemoryStore, name: string, clock: FakeClock): Promise<SyncService> {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-lf-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    lockBackend: storeLockBackend(store, { clock }),
  });
}

function warned(svc: SyncService): WarningEvent[] {
  const out: WarningEvent[] = [];
  svc.events.on("warning", (w) => out.push(w));
  return out;
}

Deno.test("a pull of a lockfile an existing client wrote without entries this cache listed names them, with their entries", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  const set = { "@x/a": { version: "1" }, "@x/b": { version: "2" }, "@x/c": { version: "3" } };
  await updateManagedLockfile(a, { set });
  await a.pullChanged();
  const seen = warned(a);
  // An existing client, its copy older than @x/c, adds @x/d and writes its whole copy.
  await peerPush(store, {
    [LOCKFILE]: JSON.stringify({ "@x/a": { version: "1" }, "@x/b": { version: "2" }, "@x/d": {} }),
  }, { now: () => clock.now() });
  await a.pullChanged();
  const dropped = seen.filter((w) => w.code === "lockfile_entries_dropped");
  assert.equal(dropped.length, 1, JSON.stringify(seen));
  assert.equal(dropped[0].path, LOCKFILE);
  assert.match(
    dropped[0].message,
    /no longer lists @x\/c \{"version":"3"\} \(this cache's values shown\)/,
  );
  assert.match(dropped[0].message, /sluice lockfile add <name> '<entry JSON>'/);
});

Deno.test("a pull of a lockfile whose entry a Sluice transaction removed says nothing of it", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  const b = await clone(store, "b", clock);
  await updateManagedLockfile(a, { set: { "@x/a": { version: "1" }, "@x/c": { version: "3" } } });
  await a.pullChanged();
  await updateManagedLockfile(b, { remove: ["@x/c"] });
  const seen = warned(a);
  await a.pullChanged();
  assert.deepEqual(Object.keys(JSON.parse(await Deno.readTextFile(`${a.cacheDir}/${LOCKFILE}`))), [
    "@x/a",
  ]);
  assert.deepEqual(seen.filter((w) => w.code === "lockfile_entries_dropped"), []);
});

Deno.test("a transaction over a lockfile an existing client wrote without entries (or with older values) this cache's copy listed names them, though no pull took that copy", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, "a", clock);
  await updateManagedLockfile(a, {
    set: { "@x/a": { version: "1" }, "@x/c": { version: "3" }, "@x/e": { version: "2" } },
  });
  await a.pullChanged();
  const seen = warned(a);
  // An existing client writes its older copy as a plain object (on a v2
  // bucket it may not even name it in the index): @x/c gone, @x/e back at 1.
  const old = { "@x/a": { version: "1" }, "@x/e": { version: "1" }, "@x/d": {} };
  await store.put(LOCKFILE, new TextEncoder().encode(JSON.stringify(old)), { kind: "overwrite" });
  await updateManagedLockfile(a, { set: { "@x/f": { version: "1" } } });
  const dropped = seen.filter((w) => w.code === "lockfile_entries_dropped");
  assert.equal(dropped.length, 1, JSON.stringify(seen));
  assert.match(dropped[0].message, /no longer lists @x\/c \{"version":"3"\}/);
  assert.match(
    dropped[0].message,
    /lists other values than this cache's copy for @x\/e \{"version":"2"\}/,
  );
  // The change itself is published over the datastore's copy, as always.
  const remote = JSON.parse(store.peekText(LOCKFILE)!);
  assert.deepEqual(Object.keys(remote).sort(), ["@x/a", "@x/d", "@x/e", "@x/f"]);
});
