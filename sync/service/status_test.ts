import assert from "node:assert/strict";
import { LOCAL_DELETION_REASON, statusEntries } from "./status.ts";
import type { PlanEntry, WriteGateEntry } from "../context.ts";

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
