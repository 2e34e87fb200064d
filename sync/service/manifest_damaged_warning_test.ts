import assert from "node:assert/strict";
import { createSyncService } from "./service.ts";
import { createEmitter, type WarningEvent } from "../events.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";

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

Deno.test("a damaged line of the synced manifest's log that a process open since before it takes in (not at its open) is told, as at an open: its record is lost", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-damaged-" });
  // The long-lived process, open before the lines are written.
  const long = await open(store, cacheDir, "long", 1);
  // Another process over the cache pushes three files, one at a time.
  const other = await open(store, cacheDir, "other", 2);
  for (const f of ["o.txt", "p.txt", "q.txt"]) {
    await Deno.writeTextFile(`${cacheDir}/${f}`, f);
    await other.service.markDirty({ relPath: f });
    await other.service.pushChanged();
  }
  // p.txt's record, a line of the log, is damaged on disk.
  const log = `${cacheDir}/.sluice/manifest.log`;
  const lines = (await Deno.readTextFile(log)).split("\n");
  const at = lines.findIndex((l) => l.includes('"p":"p.txt"'));
  assert.ok(at >= 0 && at < lines.length - 2, "p.txt's record is a log line, not the last");
  lines[at] = "#%garbage";
  await Deno.writeTextFile(log, lines.join("\n"));

  assert.equal(long.warnings.length, 0, "nothing told yet");
  // The long-lived process's next command takes the files in first.
  await long.service.status();
  assert.equal(long.service.state.synced("p.txt"), undefined, "p.txt's record is lost");
  assert.equal(long.service.state.synced("q.txt")?.version, (await store.head("q.txt"))?.version);
  assert.deepEqual(long.warnings.map((w) => w.code), ["state_unreadable"]);
  assert.match(long.warnings[0].message, new RegExp(`line ${at + 1} of its log .* damaged`));
});
