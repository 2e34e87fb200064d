/**
 * A plain copy of the managed lockfile (an existing client's write) that
 * lands between the transaction's fetch and its conditional put: the retry
 * meets it, and the entries it drops are told of as on a first attempt.
 */
import assert from "node:assert/strict";
import { createSyncService } from "../service/service.ts";
import { MANAGED_LOCKFILE_PATH, updateManagedLockfile } from "./lockfile_txn.ts";
import { storeLockBackend } from "./lock_engine.ts";
import type { WarningEvent } from "../events.ts";
import { FakeClock, hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";

const LOCKFILE = MANAGED_LOCKFILE_PATH;

Deno.test("a transaction whose retry meets a lockfile an existing client wrote meanwhile, without entries this cache listed, names them", async () => {
  const clock = new FakeClock();
  const inner = new InMemoryStore({ clock });
  let race = false;
  const store = hookedStore(inner, {
    before: async (key) => {
      if (key !== LOCKFILE || !race) return;
      race = false;
      // An existing client writes its older copy: @x/c gone.
      const old = { "@x/a": { version: "1" }, "@x/d": {} };
      await inner.put(LOCKFILE, new TextEncoder().encode(JSON.stringify(old)), {
        kind: "overwrite",
      });
    },
  });
  const a = await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-lf-race-" }),
    store,
    identity: { holder: "a@host", hostname: "host", pid: 1 },
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    lockBackend: storeLockBackend(store, { clock }),
  });
  await updateManagedLockfile(a, { set: { "@x/a": { version: "1" }, "@x/c": { version: "3" } } });
  await a.pullChanged();
  const seen: WarningEvent[] = [];
  a.events.on("warning", (w) => seen.push(w));
  race = true;
  const r = await updateManagedLockfile(a, { set: { "@x/f": { version: "1" } } });
  assert.equal(r.attempts, 2, "the first put met the plain copy");
  const remote = JSON.parse(inner.peekText(LOCKFILE)!);
  assert.deepEqual(Object.keys(remote).sort(), ["@x/a", "@x/d", "@x/f"], "@x/c is gone");
  const dropped = seen.filter((w) => w.code === "lockfile_entries_dropped");
  assert.equal(dropped.length, 1, JSON.stringify(seen));
  assert.match(dropped[0].message, /no longer lists @x\/c \{"version":"3"\}/);
});
