/**
 * The setting of the tests of a damaged line of the synced manifest's log
 * that a process open since before it takes in: a service whose warnings
 * are kept, and another process's three pushes, the middle one's record
 * then damaged on disk.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createSyncService, type SyncService } from "./service.ts";
import { createEmitter, type WarningEvent } from "../events.ts";
import { FakeClock, type InMemoryStore } from "../../packages/testing/mod.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

/** A service over `cacheDir` (process `name`, pid `pid`) and the warnings it emits. */
export async function openWatched(
  store: InMemoryStore,
  cacheDir: string,
  name: string,
  pid: number,
): Promise<{ service: SyncService; warnings: WarningEvent[] }> {
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const service = await createSyncService({
    cacheDir,
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid },
    clock: new FakeClock(),
    events,
    config: quick,
  });
  return { service, warnings };
}

/**
 * `other` pushes o.txt, p.txt and q.txt, one at a time, into its cache
 * `cacheDir`; p.txt's record, a line of the manifest's log (not the last),
 * is then damaged on disk. Returns that line's index (0-based).
 */
export async function pushThreeDamageMiddle(other: SyncService, cacheDir: string): Promise<number> {
  for (const f of ["o.txt", "p.txt", "q.txt"]) {
    await Deno.writeTextFile(`${cacheDir}/${f}`, f);
    await other.markDirty({ relPath: f });
    await other.pushChanged();
  }
  return await damageLogLineOf(cacheDir, "p.txt");
}

/**
 * Damages on disk the line of the manifest's log in `cacheDir` that records
 * `path` (one, not the last); returns that line's index (0-based).
 */
export async function damageLogLineOf(cacheDir: string, path: string): Promise<number> {
  const log = `${cacheDir}/.sluice/manifest.log`;
  const lines = (await Deno.readTextFile(log)).split("\n");
  const at = lines.findIndex((l) => l.includes(`"p":${JSON.stringify(path)}`));
  assert.ok(at >= 0 && at < lines.length - 2, `${path}'s record is a log line, not the last`);
  lines[at] = "#%garbage";
  await Deno.writeTextFile(log, lines.join("\n"));
  return at;
}
