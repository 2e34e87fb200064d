/**
 * version-under-marker when the datastore's index cannot be read: the
 * deletion of a version the committed `latest` marker may name is held,
 * dirty, never let through on the chance that the marker names another
 * version. Here another writer moved the marker onto version 2 since this
 * cache synced it naming 1; this cache deletes version 2, the marker here
 * unchanged, and the gate's one index read fails while the deletion and
 * the commit go through.
 */
import assert from "node:assert/strict";
import { clone, isIndexKey, put } from "../sync/service/clone_kit.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { UnreachableError } from "../sync/errors.ts";
import type { PushContext } from "../sync/context.ts";
import { putVersion } from "./marker_stranded_kit.ts";
import { VERSION_UNDER_MARKER } from "./version_under_marker.ts";

const DATA = "data/shell/cmd/m0/out";
const MARKER = `${DATA}/latest`;
const FILES = (n: string) => [`${DATA}/${n}/metadata.yaml`, `${DATA}/${n}/raw`];

Deno.test("a deletion of the version the datastore's marker names is held when the gate cannot read the index", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await putVersion(a, "1", { data: DATA });
  await a.pushChanged();
  await putVersion(a, "2", { data: DATA });
  await put(a, MARKER, "1");
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), "1");
  // Another writer moves the marker onto version 2; `a` does not pull.
  const b = await clone(store, "b");
  await b.pullChanged();
  await put(b, MARKER, "2");
  await b.pushChanged();
  assert.equal(store.peekText(MARKER), "2");
  // `a` deletes version 2 here, its marker still naming 1 (unchanged), and
  // the gate's index read fails (the next index read, right before it).
  await Deno.remove(`${a.cacheDir}/${DATA}/2`, { recursive: true });
  await a.markDirty({ relPaths: FILES("2") });
  a.pushPipeline.add({
    name: "fail-index-read",
    before: VERSION_UNDER_MARKER,
    middleware: async (_ctx: PushContext, next: () => Promise<void>) => {
      store.failNext("get", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
      await next();
    },
  });
  await a.pushChanged().catch(() => undefined);
  for (const f of FILES("2")) {
    assert.ok(store.peek(f), `the datastore's marker names 2, and ${f} was deleted`);
    assert.ok(a.state.dirtyPaths().includes(f), `${f} stays dirty`);
  }
});
