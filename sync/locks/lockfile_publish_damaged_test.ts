/**
 * A lockfile change published by a process open on the cache (swamp's
 * extension) saves the synced manifest outside a push, pull or resolution:
 * a damaged line of the log that save takes in (another process's record,
 * its own base written over it) loses its record, and is told then, as a
 * command's take-in tells it, not left for a command that may never come.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { openWatched, pushThreeDamageMiddle } from "../service/damaged_log_kit.ts";
import { recordPublishedLockfile } from "./lockfile_publish.ts";
import { PutModes } from "../ports.ts";

Deno.test("a lockfile change's save that takes in a damaged manifest line another process wrote tells it (state_unreadable): its record is lost, and no later open finds the line", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-lockfile-damaged-" });
  // The long-lived process, open before the lines are written (no base of its own yet).
  const long = await openWatched(store, cacheDir, "long", 1);
  const other = await openWatched(store, cacheDir, "other", 2);
  // Another process over the cache pushes three files; p.txt's record, a line of the log, is damaged on disk.
  const at = await pushThreeDamageMiddle(other.service, cacheDir);

  const path = "config/upstream_extensions.json";
  const body = new TextEncoder().encode("{}");
  const put = await store.put(path, body, PutModes.create);
  await recordPublishedLockfile(long.service, path, body, put.version, undefined, null);

  assert.equal(long.service.state.synced(path)?.version, put.version);
  assert.deepEqual(long.warnings.map((w) => w.code), ["state_unreadable"]);
  assert.match(long.warnings[0].message, new RegExp(`line ${at + 1} of its log .* damaged`));
});
