import assert from "node:assert/strict";
import { KeyClashError } from "../errors.ts";
import type { PlanEntry } from "../context.ts";
import { planEntry } from "../../packages/testing/mod.ts";
import { clashesFirst, type PushFailureEntry } from "./push_clash.ts";

const entry = (path: string, over: Partial<PlanEntry> = {}): PlanEntry =>
  planEntry(path, { source: "dirty", ...over });
const clash = (e: PlanEntry): PushFailureEntry => ({
  entry: e,
  error: new KeyClashError(e.path, "a key and keys beneath it"),
});

Deno.test("clashes first: the deletion and the stranded check near a refused write go first, then the write again", async () => {
  const write = entry("a/x");
  const other = entry("b", { action: "delete" });
  const del = entry("a", { action: "delete" });
  const stray = entry("a/x/old", { action: "skip", strandedCheck: true });
  const failures = [clash(write)];
  const deletes = [del, other];
  let called: [PlanEntry[], PlanEntry[], PlanEntry[]] | undefined;
  await clashesFirst([write, del, other, stray], failures, deletes, (first, strays, again) => {
    called = [first, [...strays], again];
    return Promise.resolve(true);
  });
  assert.deepEqual(called, [[del], [stray], [write]]);
  assert.deepEqual(failures, [], "the write is made again");
  assert.deepEqual(deletes, [other], "the deletion made first is taken out");
});

Deno.test("clashes first: no clash, or none near, calls nothing; a run that stops puts the writes back among the failures", async () => {
  const write = entry("a/x");
  let calls = 0;
  const count = () => (calls++, Promise.resolve(true));
  await clashesFirst([], [{ entry: write, error: new Error("other") }], [], count);
  await clashesFirst([], [clash(write)], [entry("b", { action: "delete" })], count);
  assert.equal(calls, 0);
  const failures = [clash(write)];
  await clashesFirst(
    [],
    failures,
    [entry("a", { action: "delete" })],
    () => Promise.resolve(false),
  );
  assert.deepEqual(failures.map((f) => f.entry), [write]);
});
