import assert from "node:assert/strict";
import {
  pullConflictWarning,
  uncommittedTheirsWarning,
  uncommittedWarning,
} from "./pull_warnings.ts";
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
  const lockfile = uncommittedWarning("config/upstream_extensions.json", "v2", "v1", false)
    .message;
  assert.doesNotMatch(lockfile, /sluice pull --adopt-uncommitted/);
  assert.match(lockfile, /the next lockfile change of any cache .* reads the datastore's object/);
  const left = pullLeftBehind({
    uncommitted: [
      "notes/n.txt",
      "data/t/m/out/latest",
      "data/t/m/out/3/raw",
      "config/upstream_extensions.json",
    ],
    conflicts: [],
    dropped: [],
  } as unknown as PullResult).left.map((l) => l.reason);
  assert.match(left[0], /publishes the object it left/);
  assert.match(left[1], /once the version it names is committed/);
  assert.match(left[2], /never adopted/);
  assert.match(left[3], /next lockfile change of any cache .* never adopted/);
});

Deno.test("a marker skipped as uncommitted, its writer gone: a run here that writes a newer version moves the datastore's marker past it, as the pull says", async () => {
  const store = new InMemoryStore();
  const data = "data/t/m/state";
  const a = await clone(store, "a");
  await put(a, `${data}/1/raw`, "v1");
  await put(a, `${data}/1/metadata.yaml`, "version: 1");
  await put(a, `${data}/latest`, "1");
  await a.pushChanged();
  // An older client's run uploaded versions 2 to 4 and its marker, then died before its commit.
  for (const v of [2, 3, 4]) {
    store.seed(`${data}/${v}/raw`, `old client v${v}`);
    store.seed(`${data}/${v}/metadata.yaml`, `version: ${v}`);
  }
  store.seed(`${data}/latest`, "4");
  const b = await clone(store, "b");
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  await b.pullChanged().catch(() => undefined); // exit 2: the marker skipped
  const told = warnings.find((w) => w.path === `${data}/latest`);
  assert.ok(told, "the marker was skipped as uncommitted");
  const claims = /a run here that writes a newer version moves the marker past it/.test(
    told.message,
  );
  // Runs here, each numbered above the highest directory in the cache, as swamp numbers them.
  let last = 0;
  for (let run = 1; run <= 3; run++) {
    let v = 0;
    for await (const e of Deno.readDir(`${b.cacheDir}/${data}`)) {
      if (e.isDirectory && /^\d+$/.test(e.name)) v = Math.max(v, Number(e.name));
    }
    last = v + 1;
    await put(b, `${data}/${last}/raw`, `run ${run}`);
    await put(b, `${data}/${last}/metadata.yaml`, `version: ${last}`);
    await put(b, `${data}/latest`, `${last}`);
    const r = await b.pushChanged().catch(() => undefined);
    if (r) break;
  }
  assert.equal(store.peekText(`${data}/${last}/raw`), "run 2", "the newer version is published");
  // What the warning says of a newer run holds: it moved the marker past, or the warning does not say so.
  assert.ok(
    !claims || store.peekText(`${data}/latest`) === `${last}`,
    "the warning says a newer run moves the marker past it; the push records a conflict with the dead client's uncommitted marker instead",
  );
});

Deno.test("a path skipped as uncommitted gets the way out of the class the cache's classifier rules give it, as the adoption does", async () => {
  const store = new InMemoryStore();
  const rules = { classifierRules: [{ pattern: "reports/**", class: "data-version" as const }] };
  const a = await clone(store, "a", undefined, rules);
  await put(a, "reports/r.txt", "1");
  await a.pushChanged();
  // Another writer's upload over it, its commit never made: the index still names the first.
  store.seed("reports/r.txt", "2");
  const b = await clone(store, "b", undefined, rules);
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.uncommitted, ["reports/r.txt"]);
  const adopted = await b.pullChanged({ adoptUncommitted: ["reports/r.txt"] });
  // A data version by the rules: never adopted ...
  assert.deepEqual(adopted.adopted ?? [], []);
  assert.match(adopted.notAdopted?.[0]?.why ?? "", /never published as its writer's/);
  // ... so neither the warning nor the pull's reason may offer it.
  const told = warnings.find((w) => w.path === "reports/r.txt");
  assert.ok(told);
  assert.doesNotMatch(told.message, /sluice pull --adopt-uncommitted/, told.message);
  assert.doesNotMatch(
    pullLeftBehind(pulled).left[0].reason,
    /sluice pull --adopt-uncommitted/,
  );
});

Deno.test("a resolve --theirs whose theirs is skipped as uncommitted: the copy goes back, the conflict stays open, and the way out by class runs the resolution again", () => {
  const file = uncommittedTheirsWarning("notes/n.txt", "v2", "v1", "back").message;
  assert.match(file, /your copy[^.]* goes back in place, and the conflict stays open/);
  assert.doesNotMatch(file, /Nothing is at the path/);
  assert.match(
    file,
    /run `sluice pull --adopt-uncommitted notes\/n\.txt` .*then `sluice resolve notes\/n\.txt --theirs` again/,
  );
  const gone = uncommittedTheirsWarning("notes/n.txt", "v2", "v1", false).message;
  assert.match(gone, /nothing is at the path here, and the conflict stays open/);
  const version = uncommittedTheirsWarning("data/t/m/out/3/raw", "v2", "v1", "back").message;
  assert.doesNotMatch(version, /sluice pull --adopt-uncommitted/);
});
