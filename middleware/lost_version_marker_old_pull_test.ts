/**
 * The take-back of a lost version's marker upload (`lost_version_marker.ts`)
 * on a v1 bucket beside an old client's pull, which rewrites the index with
 * no lock and drops the entry of each object it finds gone: the pull looks
 * at the marker as the take-back puts the committed marker back in place of
 * the upload. The committed marker must not be lost from the store and the
 * index.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { VersionConflictError } from "../sync/errors.ts";
import { assertIndexCurrent, clone, put, read } from "../sync/service/clone_kit.ts";
import { oldPullOnMarker } from "./marker_stranded_kit.ts";

const D = "data/t/m/out";
const MARKER = `${D}/latest`;
const indexKey = (k: string) => k.startsWith("_") || k.startsWith(".");

Deno.test("an old client's pull during a lost version's marker take-back over a committed marker loses no committed marker", async () => {
  const store = new InMemoryStore();
  const { a, arm, pulled } = await oldPullOnMarker(store, MARKER);
  await put(a, `${D}/1/raw`, "v1");
  await put(a, `${D}/1/metadata.yaml`, "version: 1");
  await put(a, MARKER, "1");
  await a.pushChanged();
  // Version 2 and the marker moved onto it uploaded, the commit cut off.
  await put(a, `${D}/2/raw`, "v2");
  await put(a, `${D}/2/metadata.yaml`, "version: 2");
  await put(a, MARKER, "2");
  store.failNext("put", 50, undefined, { match: indexKey });
  await assert.rejects(a.pushChanged());
  store.heal();
  assert.equal(store.peekText(MARKER), "2", "the marker upload landed");
  // Version 2 changed here since: lost, the marker reset and its upload taken back.
  await put(a, `${D}/2/raw`, "v2 changed");
  arm();
  await assert.rejects(a.pushChanged(), VersionConflictError);
  assert.ok(pulled() !== undefined, "the old client pulled as the marker was put back");
  await a.pullChanged();
  await a.pushChanged().catch(() => undefined);
  assert.equal(store.peekText(MARKER), "1", `the old pull dropped ${pulled()}`);
  await assertIndexCurrent(store, { held: true });
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "1");
});
