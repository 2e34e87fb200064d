/**
 * The managed lockfile held as a conflict by a pull (changed here and on the
 * datastore), then published by this checkout's transaction: the published
 * copy holds both changes and is the local copy too, so the conflict is over.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { checkout } from "./checkout_kit.ts";
import { createSluice } from "../../sluice.ts";

const LOCKFILE = "config/upstream_extensions.json";

async function proc(store: InMemoryStore, name: string) {
  const { svc, cache, write, warnings } = await checkout(store, name, createSluice);
  return {
    svc,
    warnings,
    write: (entries: Record<string, unknown>) => write(LOCKFILE, JSON.stringify(entries)),
    read: async () => JSON.parse(await Deno.readTextFile(`${cache}/${LOCKFILE}`)),
  };
}

Deno.test("lockfile: a pull conflict of the lockfile is settled once the transaction publishes this checkout's change", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const b = await proc(store, "b");
  const base = { "@x/base": { version: "1" } };
  await a.svc.markDirty({ relPath: LOCKFILE });
  await a.write(base);
  await a.svc.pushChanged();
  await b.svc.pullChanged();
  // Both checkouts add an entry to their own copy; a publishes first.
  await a.svc.markDirty({ relPath: LOCKFILE });
  await a.write({ ...base, "@x/a": { version: "2" } });
  await b.svc.markDirty({ relPath: LOCKFILE });
  await b.write({ ...base, "@x/b": { version: "3" } });
  await a.svc.pushChanged();
  // b's pull (a structural command's, before its push) meets a's copy: a conflict for now.
  await b.svc.pullChanged();
  assert.ok(b.warnings.some((w) => w.code === "pull_conflict"));
  await b.svc.pushChanged();
  const merged = ["@x/a", "@x/b", "@x/base"];
  assert.deepEqual(Object.keys(JSON.parse(store.peekText(LOCKFILE)!)).sort(), merged);
  assert.deepEqual(Object.keys(await b.read()).sort(), merged);
  // The copy here is the datastore's, holding b's change: nothing is left to resolve.
  b.warnings.length = 0;
  await b.svc.pullChanged();
  await b.svc.pushChanged();
  assert.deepEqual(b.warnings.map((w) => w.code), []);
});
