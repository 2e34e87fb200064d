import assert from "node:assert/strict";
import { pullConflictWarning, uncommittedWarning } from "./pull_warnings.ts";
import { pullLeftBehind, type PullResult } from "./pull_result.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import type { WarningEvent } from "../events.ts";
import { clone, put, read } from "./clone_kit.ts";

const THEIRS = { v: "v7", h: "a".repeat(64), s: 3 };

Deno.test("pull_conflict of a copy set aside says why it differs, never that it changed here since a sync", () => {
  const w = pullConflictWarning(
    "notes/n.txt",
    { location: ".sluice/set-aside/x/notes/n.txt", hash: "b".repeat(64), size: 2 },
    THEIRS,
    true,
    "a local copy this cache never synced differed from the datastore's",
  );
  assert.match(w.message, /differs here: a local copy this cache never synced differed/);
  assert.doesNotMatch(w.message, /is also changed here/);
  assert.match(
    w.message,
    /set aside in \.sluice\/set-aside\/x\/notes\/n\.txt and the datastore's copy taken/,
  );
});

Deno.test("pull_conflict of a copy kept in place, or a deletion here, says it changed here", () => {
  const kept = pullConflictWarning(
    "notes/n.txt",
    { location: "notes/n.txt", hash: "b".repeat(64), size: 2 },
    THEIRS,
    false,
    "changed here since the last sync, and on the datastore",
  );
  assert.match(kept.message, /is also changed here/);
  const deleted = pullConflictWarning("notes/n.txt", null, THEIRS, false);
  assert.match(deleted.message, /is also deleted here/);
  const dir = pullConflictWarning("notes/n.txt", null, THEIRS, false, undefined, (l) => l, true);
  assert.match(dir.message, /is also replaced by a directory here; the directory here stands/);
  assert.doesNotMatch(dir.message, /deleted here|deletion/);
});

Deno.test("a pull meeting theirs changed where a directory replaced the synced file here says so, not a deletion", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "cfg/y.txt", "one");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, "cfg/y.txt", "two");
  await a.pushChanged();
  // b replaces the file by a directory of its name, unpushed.
  await Deno.remove(`${b.cacheDir}/cfg/y.txt`);
  await put(b, "cfg/y.txt/z.txt", "under it", false);
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const r = await b.pullChanged();
  assert.deepEqual(r.conflicts, ["cfg/y.txt"]);
  const told = warnings.find((w) => w.code === "pull_conflict" && w.path === "cfg/y.txt");
  assert.ok(told, JSON.stringify(warnings));
  assert.match(told.message, /replaced by a directory here; the directory here stands/);
  assert.equal(await read(b, "cfg/y.txt/z.txt"), "under it");
});

Deno.test("a path skipped as uncommitted gets the way out its class has: adopt a file, wait on a marker's version, never adopt a data version", () => {
  const file = uncommittedWarning("notes/n.txt", "v2", "v1", false).message;
  assert.match(
    file,
    /`sluice pull --adopt-uncommitted notes\/n\.txt` publishes the object it left/,
  );
  const marker = uncommittedWarning("data/t/m/out/latest", "v2", "v1", false).message;
  assert.match(marker, /publishes the marker it left once the version it names is committed/);
  const version = uncommittedWarning("data/t/m/out/3/raw", "v2", "v1", false).message;
  assert.doesNotMatch(version, /sluice pull --adopt-uncommitted/);
  assert.match(version, /never published as its writer's/);
  const left = pullLeftBehind({
    uncommitted: ["notes/n.txt", "data/t/m/out/latest", "data/t/m/out/3/raw"],
    conflicts: [],
    dropped: [],
  } as unknown as PullResult).left.map((l) => l.reason);
  assert.match(left[0], /publishes the object it left/);
  assert.match(left[1], /once the version it names is committed/);
  assert.match(left[2], /never adopted/);
});
