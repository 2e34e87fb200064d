import assert from "node:assert/strict";
import {
  WARNING_WINDOW_MS,
  warningPrinter,
  WARNINGS_SHOWN_PER_CODE,
  withCliTarget,
} from "./warnings.ts";
import { emptyPushResult } from "../../sync/service/push.ts";
import { pushOutcome } from "./left_behind.ts";

Deno.test("warnings: one line per warning, labelled with the extension type and the code", () => {
  const lines: string[] = [];
  const print = warningPrinter("@sluice/s3-datastore", (l) => lines.push(l));
  print({ code: "conditional_writes_fallback", message: "The endpoint ignores conditions." });
  assert.deepEqual(lines, [
    "[@sluice/s3-datastore] warning[conditional_writes_fallback]: The endpoint ignores conditions.",
  ]);
});

Deno.test("warnings: the same line is written once; other lines of the code still are", () => {
  const lines: string[] = [];
  const print = warningPrinter("t", (l) => lines.push(l));
  print({ code: "c", message: "a" });
  print({ code: "c", message: "a" });
  print({ code: "c", message: "b" });
  assert.deepEqual(lines, ["[t] warning[c]: a", "[t] warning[c]: b"]);
});

Deno.test("warnings: past the cap of one code, one line says the rest are not shown; other codes go on", () => {
  const lines: string[] = [];
  const print = warningPrinter("t", (l) => lines.push(l));
  for (let i = 0; i < WARNINGS_SHOWN_PER_CODE + 5; i++) print({ code: "many", message: `m${i}` });
  print({ code: "other", message: "x" });
  assert.equal(lines.length, WARNINGS_SHOWN_PER_CODE + 2);
  assert.match(
    lines[WARNINGS_SHOWN_PER_CODE],
    /more many warnings follow and are not shown for 10 minutes/,
  );
  assert.equal(lines.at(-1), "[t] warning[other]: x");
});

Deno.test("warnings: a new window says again what is still open, past the cap too", () => {
  const lines: string[] = [];
  let t = 0;
  const print = warningPrinter("t", (l) => lines.push(l), () => t);
  for (let i = 0; i < WARNINGS_SHOWN_PER_CODE + 1; i++) print({ code: "c", message: `m${i}` });
  print({ code: "c", message: "m0" });
  assert.equal(lines.length, WARNINGS_SHOWN_PER_CODE + 1);
  t += WARNING_WINDOW_MS;
  print({ code: "c", message: "m0" });
  assert.equal(lines.at(-1), "[t] warning[c]: m0");
});

Deno.test("warnings: each Sluice command a warning names is given the cache and store of where it came from", () => {
  const target = { cacheDir: "/home/u/.swamp/repos/r 1", storeUrl: "s3://b/p?endpoint=http://h:9" };
  const args = "--cache '/home/u/.swamp/repos/r 1' --store 's3://b/p?endpoint=http://h:9'";
  assert.equal(
    withCliTarget("Run `sluice status` to see both, then `sluice resolve a.yaml --mine`.", target),
    `Run \`sluice status ${args}\` to see both, then \`sluice resolve a.yaml --mine ${args}\`.`,
  );
  assert.equal(
    withCliTarget("No command; `sluice-writer` metadata.", target),
    "No command; `sluice-writer` metadata.",
  );
  const named = "Run `npx sluice status --cache /c --store s3://b/p`, then `sluice push`.";
  assert.equal(withCliTarget(named, target), named, "a message naming its cache is left as it is");

  const lines: string[] = [];
  const print = warningPrinter(
    "t",
    (l) => lines.push(l),
    Date.now,
    new Set(),
    (w) => w.path === "mine" ? target : undefined,
  );
  print({ code: "c", message: "Run `sluice status`.", path: "mine" });
  print({ code: "c", message: "Run `sluice push`." });
  assert.deepEqual(lines, [
    `[t] warning[c]: Run \`sluice status ${args}\`.`,
    "[t] warning[c]: Run `sluice push`.",
  ]);
});

Deno.test("warnings: what a sync left behind is written for every sync, the same line again and past the cap", () => {
  const lines: string[] = [];
  const print = warningPrinter("t", (l) => lines.push(l));
  for (let i = 0; i < WARNINGS_SHOWN_PER_CODE + 2; i++) {
    print({ code: "conflicts_left", message: "1 conflict(s) are unresolved (a)." });
    print({ code: "sync_incomplete", message: "1 file(s) were left (b)." });
  }
  assert.equal(lines.length, 2 * (WARNINGS_SHOWN_PER_CODE + 2));
  assert.ok(lines.every((l) => !l.includes("not shown")));
});

Deno.test("warnings: synced files deleted here that a push left undeleted are written for every push, as what it left behind", () => {
  const lines: string[] = [];
  const print = warningPrinter("t", (l) => lines.push(l));
  const r = { ...emptyPushResult(), localDeletions: ["a/deleted.yaml"] };
  const target = { cacheDir: "/c", storeUrl: "s3://b/p" };
  for (let i = 0; i < 3; i++) for (const w of pushOutcome(r, target)) print(w);
  assert.deepEqual(pushOutcome(r, target).map((w) => w.code), ["local_deletions_kept"]);
  assert.equal(lines.length, 3, "each push leaving them says so");
});

Deno.test("warnings: a managed lockfile change a push left unpublished, and a cache a solo push did not walk, are written for every push, as what it left behind", () => {
  const lines: string[] = [];
  const print = warningPrinter("t", (l) => lines.push(l));
  for (let i = 0; i < 3; i++) {
    print({
      code: "lockfile_change_unpublished",
      message: "The local .swamp/lockfile.json differs (...): nothing of it was published.",
      path: ".swamp/lockfile.json",
    });
    print({
      code: "unsynced_cache_not_walked",
      message: "The cache /c was never synced (...): no unmarked file was pushed.",
      path: "a.yaml",
    });
  }
  assert.equal(lines.length, 6, "each push leaving them says so");
});
