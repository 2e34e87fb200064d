/**
 * The gates' module exports every gate of the default pipelines, each with a
 * name constant and an entry that places it under that name.
 */
import assert from "node:assert/strict";
import * as gates from "./mod.ts";
import { defaultPipelines } from "../sluice.ts";

Deno.test("middleware/mod.ts: every default gate's name, middleware and entry are exported and agree", () => {
  const { push, write } = defaultPipelines();
  const names = [...push.ordered(), ...write.ordered()].map((e) => e.name).sort();
  const exported = gates as unknown as Record<string, unknown>;
  const constants = Object.entries(exported)
    .filter(([k, v]) => /^[A-Z_]+$/.test(k) && typeof v === "string")
    .map(([, v]) => v as string)
    .sort();
  assert.deepEqual(constants, names, "one name constant per default gate");
  for (const [k, v] of Object.entries(exported)) {
    if (!k.endsWith("Entry")) continue;
    const entry = (v as (o?: unknown) => { name: string; middleware: unknown })({});
    assert.ok(names.includes(entry.name), `${k} places a default gate (${entry.name})`);
    const factory = exported[k.slice(0, -"Entry".length)];
    assert.equal(typeof factory, "function", `${k} has its middleware factory beside it`);
    assert.equal(typeof entry.middleware, "function");
  }
  assert.equal(Object.keys(exported).filter((k) => k.endsWith("Entry")).length, names.length);
});
