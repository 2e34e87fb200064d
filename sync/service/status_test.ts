import assert from "node:assert/strict";
import { LOCAL_DELETION_REASON, statusEntries, withPathClasses } from "./status.ts";
import type { PlanEntry, WriteGateEntry } from "../context.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put } from "./clone_kit.ts";
import { pushLeftBehind } from "./push_result.ts";
import { UnreachableError } from "../errors.ts";

Deno.test("statusEntries: a put lists the write gates that apply to it; deletions here come last, as skips with their reason", () => {
  const plan: PlanEntry[] = [
    { path: "a.txt", action: "put", source: "walk", handledBy: ["path-classifier"] },
    { path: "b.txt", action: "skip", source: "dirty", handledBy: [], reason: "a link" },
  ];
  const gates = [
    { name: "overwrite-cas", appliesTo: () => true },
    { name: "create-only-writer", appliesTo: () => false },
  ] as unknown as WriteGateEntry[];
  assert.deepEqual(statusEntries(plan, ["gone.txt"], gates), [
    {
      path: "a.txt",
      action: "put",
      class: undefined,
      handledBy: ["path-classifier", "overwrite-cas"],
      reason: undefined,
    },
    { path: "b.txt", action: "skip", class: undefined, handledBy: [], reason: "a link" },
    { path: "gone.txt", action: "skip", handledBy: [], reason: LOCAL_DELETION_REASON },
  ]);
});

Deno.test("statusReport: a file a push now would leave out is named in what it leaves behind, as the push then does", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "logs/f.log", "a's");
  await a.pushChanged();
  // b never synced logs/f.log and holds other bytes: a walk push leaves it out.
  const b = await clone(store, "b");
  await put(b, "logs/f.log", "b's", false);
  await b.markDirty({});
  const { leftBehind } = await b.statusReport({ walk: true });
  assert.deepEqual(leftBehind.left.map((l) => l.path), ["logs/f.log"]);
  assert.equal(b.state.synced("logs/f.log"), undefined, "a trial records nothing");
  const pushed = await b.pushChanged();
  assert.deepEqual(pushLeftBehind(pushed).left.map((l) => l.path), ["logs/f.log"]);
});

Deno.test("statusReport with a datastore that does not answer still lists this cache's side", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "logs/new.log", "new here", false);
  await a.markDirty({});
  for (const call of ["get", "head", "list"] as const) {
    store.failNext(call, 100, () => new UnreachableError("cut off"));
  }
  const r = await a.statusReport({ walk: true });
  assert.deepEqual(r.entries.map((e) => [e.path, e.action]), [["logs/new.log", "put"]]);
});

Deno.test("statusEntries: a deletion here the plan also holds keeps the class the gates gave it there; withPathClasses classifies only what no gate saw", () => {
  const plan: PlanEntry[] = [
    {
      path: "config/gone.yaml",
      action: "skip",
      source: "walk",
      class: "config",
      handledBy: ["path-classifier"],
    },
  ];
  const entries = statusEntries(plan, ["config/gone.yaml", "other/gone.txt"], [], [
    { path: "link", reason: "it is a symbolic link" },
  ]);
  assert.deepEqual(entries.map((e) => [e.path, e.class]), [
    ["config/gone.yaml", "config"],
    ["other/gone.txt", undefined],
    ["link", undefined],
  ]);
  const classified = withPathClasses([
    ...entries,
    { path: "unclassified.txt", action: "put", handledBy: ["overwrite-cas"] },
  ], (p) => `class of ${p}`);
  assert.deepEqual(classified.map((e) => [e.path, e.class]), [
    ["config/gone.yaml", "config"],
    ["other/gone.txt", "class of other/gone.txt"],
    ["link", "class of link"],
    ["unclassified.txt", undefined],
  ]);
});
