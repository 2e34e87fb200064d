/**
 * The lockfile transaction with base values (`LockfileChange.base`): an
 * entry another checkout changed since the change was made is left as
 * theirs and told of, also where the datastore has no lockfile; the command
 * line's add, which has no base, is applied as it is.
 */
import assert from "node:assert/strict";
import { MANAGED_LOCKFILE_PATH, updateManagedLockfile } from "./lockfile_txn.ts";
import { createSyncService } from "../service/service.ts";
import { storeLockBackend } from "./lock_engine.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function checkout(store: InMemoryStore, name: string, clock: FakeClock) {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-lockfile-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock,
    config: quick,
    lockBackend: storeLockBackend(store, { clock }),
  });
}
const remote = (s: InMemoryStore) => JSON.parse(s.peekText(MANAGED_LOCKFILE_PATH) ?? "{}");

Deno.test("a pending change with a base, then the command line's add of that entry while a peer changed it: the add is applied", async () => {
  const store = new InMemoryStore();
  const clock = new FakeClock();
  const a = await checkout(store, "a", clock);
  const b = await checkout(store, "b", clock);
  await updateManagedLockfile(a, { set: { x: 1 } });
  store.unreachable = true;
  await assert.rejects(updateManagedLockfile(a, { set: { x: 2 }, base: { x: 1 } }));
  store.unreachable = false;
  await updateManagedLockfile(b, { set: { x: 5 } });
  await updateManagedLockfile(a, { set: { x: 9 } });
  assert.equal(remote(store).x, 9);
});

Deno.test("a change with a base where the datastore has no lockfile (removed meanwhile): told of, never dropped without a word", async () => {
  const store = new InMemoryStore();
  const a = await checkout(store, "a", new FakeClock());
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(`${w.code}: ${w.message}`));
  await updateManagedLockfile(a, { set: { x: 2 }, base: { x: 1 } });
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /^lockfile_entry_conflict: The entry x .*from 1 to no entry.*sluice lockfile add x 2/,
  );
});
