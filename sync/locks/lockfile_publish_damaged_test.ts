/**
 * A lockfile change published by a process open on the cache (swamp's
 * extension) saves the synced manifest outside a push, pull or resolution:
 * a damaged line of the log that save takes in (another process's record,
 * its own base written over it) loses its record, and is told then, as a
 * command's take-in tells it, not left for a command that may never come.
 */
import assert from "node:assert/strict";
import { createSyncService } from "../service/service.ts";
import { createEmitter, type WarningEvent } from "../events.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { recordPublishedLockfile } from "./lockfile_publish.ts";
import { PutModes } from "../ports.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function open(store: InMemoryStore, cacheDir: string, name: string, pid: number) {
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

Deno.test("a lockfile change's save that takes in a damaged manifest line another process wrote tells it (state_unreadable): its record is lost, and no later open finds the line", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-lockfile-damaged-" });
  // The long-lived process, open before the lines are written (no base of its own yet).
  const long = await open(store, cacheDir, "long", 1);
  const other = await open(store, cacheDir, "other", 2);
  for (const f of ["o.txt", "p.txt", "q.txt"]) {
    await Deno.writeTextFile(`${cacheDir}/${f}`, f);
    await other.service.markDirty({ relPath: f });
    await other.service.pushChanged();
  }
  const log = `${cacheDir}/.sluice/manifest.log`;
  const lines = (await Deno.readTextFile(log)).split("\n");
  const at = lines.findIndex((l) => l.includes('"p":"p.txt"'));
  assert.ok(at >= 0 && at < lines.length - 2, "p.txt's record is a log line, not the last");
  lines[at] = "#%garbage";
  await Deno.writeTextFile(log, lines.join("\n"));

  const path = "config/upstream_extensions.json";
  const body = new TextEncoder().encode("{}");
  const put = await store.put(path, body, PutModes.create);
  await recordPublishedLockfile(long.service, path, body, put.version, undefined, null);

  assert.equal(long.service.state.synced(path)?.version, put.version);
  assert.deepEqual(long.warnings.map((w) => w.code), ["state_unreadable"]);
  assert.match(long.warnings[0].message, new RegExp(`line ${at + 1} of its log .* damaged`));
});
