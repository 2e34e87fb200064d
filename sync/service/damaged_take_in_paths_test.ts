/**
 * Every way a process open since before a damaged line of the synced
 * manifest's log was written can take that log in (a push, a pull, a
 * resolution, a status, a lockfile change's save, a held run's discard, a
 * save its caller makes of the state itself) tells the line, a
 * `state_unreadable` warning naming it: once, never again at a later take-in
 * of the same log, and never not at all.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { damageLogLineOf, openWatched, pushThreeDamageMiddle } from "./damaged_log_kit.ts";
import type { SyncService } from "./service.ts";
import type { WarningEvent } from "../events.ts";
import { sha256Hex } from "../hash.ts";
import { PutModes } from "../ports.ts";
import { recordPublishedLockfile } from "../locks/lockfile_publish.ts";
import { resolveHeldVersions } from "../../middleware/erasure_held.ts";
import { emptyJournal, writeErasureJournal } from "../../middleware/erasure_journal.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** The damaged-line warnings among `warnings` naming line `line` (from 1) of the log. */
function toldOf(warnings: readonly WarningEvent[], line: number): WarningEvent[] {
  return warnings.filter((w) =>
    w.code === "state_unreadable" &&
    new RegExp(`^synced manifest: lines? (\\d+, )*${line}(, \\d+)* of its log`).test(w.message)
  );
}

/** `service` pushes a file of its own: a take-in, and a save that writes a base over the log. */
async function pushOwn(service: SyncService, cacheDir: string, name: string): Promise<void> {
  await Deno.writeTextFile(`${cacheDir}/${name}`, name);
  await service.markDirty({ relPath: name });
  await service.pushChanged();
}

interface World {
  readonly store: InMemoryStore;
  readonly cacheDir: string;
  readonly long: SyncService;
}

/** Each way the long-lived process takes the log in, after the damage. */
const paths: Record<
  string,
  { before?: (w: World) => Promise<void>; run: (w: World) => Promise<unknown> }
> = {
  "a push": { run: (w) => pushOwn(w.long, w.cacheDir, "x.txt") },
  "a pull": { run: (w) => w.long.pullChanged() },
  "a status": { run: (w) => w.long.status() },
  "a resolution": {
    // A conflict of c.txt recorded before the damage: a peer's copy on the datastore, this cache's here.
    before: async (w) => {
      const peerDir = await Deno.makeTempDir({ prefix: "sluice-take-in-peer-" });
      const peer = await openWatched(w.store, peerDir, "peer", 3);
      await pushOwn(peer.service, peerDir, "c.txt");
      const theirs = (await w.store.head("c.txt"))!;
      await Deno.writeTextFile(`${w.cacheDir}/c.txt`, "mine");
      await w.long.state.conflicts.record([{
        path: "c.txt",
        mine: { location: "c.txt", hash: await sha256Hex(enc("mine")), size: 4 },
        theirs: { version: theirs.version, hash: await sha256Hex(enc("c.txt")), size: 5 },
        foundBy: "pull",
        at: 0,
        reason: "both changed",
      }]);
    },
    run: (w) => w.long.resolveConflict("c.txt", "theirs"),
  },
  "a lockfile change's save": {
    run: async (w) => {
      const path = "config/upstream_extensions.json";
      const body = enc("{}");
      const put = await w.store.put(path, body, PutModes.create);
      await recordPublishedLockfile(w.long, path, body, put.version, undefined, null);
    },
  },
  "a save of the state outside any command": {
    run: (w) => w.long.state.recordSynced("s.txt", { hash: "0".repeat(64), version: "v", size: 1 }),
  },
};

for (const [name, path] of Object.entries(paths)) {
  Deno.test(`a damaged manifest line taken in by ${name}, in a process open since before it, is told once by that process`, async () => {
    const store = new InMemoryStore();
    const cacheDir = await Deno.makeTempDir({ prefix: "sluice-take-in-paths-" });
    const long = await openWatched(store, cacheDir, "long", 1);
    const w = { store, cacheDir, long: long.service };
    await path.before?.(w);
    const other = await openWatched(store, cacheDir, "other", 2);
    const at = await pushThreeDamageMiddle(other.service, cacheDir);
    assert.equal(toldOf(long.warnings, at + 1).length, 0, "nothing told before the take-in");

    await path.run(w);
    assert.equal(toldOf(long.warnings, at + 1).length, 1, `told by ${name}`);

    // A later take-in of the same log (a push's save reads it again before its base) tells nothing more.
    await pushOwn(long.service, cacheDir, "later.txt");
    assert.equal(toldOf(long.warnings, at + 1).length, 1, `told once, after ${name}`);
    assert.deepEqual(
      long.warnings.filter((w) => w.code === "state_unreadable").length,
      1,
      "no other state_unreadable warning",
    );
  });
}

Deno.test("a damaged manifest line taken in by a held run's discard (another process's base on disk) is told once by that process", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-take-in-held-" });
  const D = "data/t/m/d";
  // Both open before anything is written.
  const other = await openWatched(store, cacheDir, "other", 2);
  const long = await openWatched(store, cacheDir, "long", 1);
  // The held run's file, synced at a version the datastore no longer holds,
  // changed by the run: the discard forgets its record, and saves.
  await Deno.mkdir(`${cacheDir}/${D}/1`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${D}/1/raw`, "run");
  await long.service.state.recordSynced(`${D}/1/raw`, {
    hash: "0".repeat(64),
    version: "gone",
    size: 3,
  });
  // Another process's base over it (its first save), then two lines of its log, the first damaged.
  for (const f of ["o.txt", "p.txt", "q.txt"]) {
    await Deno.writeTextFile(`${cacheDir}/${f}`, f);
    await other.service.state.recordSynced(f, { hash: "1".repeat(64), version: f, size: 5 });
  }
  const at = await damageLogLineOf(cacheDir, "p.txt");

  await writeErasureJournal(long.service.cache, {
    ...emptyJournal(),
    held: [{ dirs: [`${D}/1`], problems: [], uploads: [], at: 0 }],
  });
  const deps = {
    cache: long.service.cache,
    state: long.service.state,
    store,
    config: long.service.config,
  };
  assert.deepEqual(await resolveHeldVersions(deps, [`${D}/1`], "discard"), [`${D}/1`]);
  assert.equal(long.service.state.synced(`${D}/1/raw`), undefined, "the run's file forgotten");
  assert.equal(
    long.service.state.synced("q.txt")?.version,
    "q.txt",
    "the other's records taken in",
  );
  assert.equal(toldOf(long.warnings, at + 1).length, 1, "told by the discard");

  await pushOwn(long.service, cacheDir, "later.txt");
  assert.equal(toldOf(long.warnings, at + 1).length, 1, "told once, after the discard");
});
