/**
 * A lockfile change's publish settles the lockfile's conflict outside any
 * push, pull or resolution of its process (no fresh read of the records
 * first): it deletes only the record as this process's last operation read
 * it, never one another process sharing the cache saved since.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { processOver } from "../service/clone_kit.ts";
import type { ConflictRecord } from "../service/conflicts.ts";
import type { SyncService } from "../service/service.ts";
import { PutModes } from "../ports.ts";
import { recordPublishedLockfile } from "./lockfile_publish.ts";
import { MANAGED_LOCKFILE_PATH } from "./lockfile_change.ts";

const PATH = MANAGED_LOCKFILE_PATH;
const H = (c: string) => c.repeat(64);

/** A pull's conflict of the lockfile, its copy in place, against theirs `version`. */
const conflict = (version: string, at: number): ConflictRecord => ({
  path: PATH,
  mine: { location: PATH, hash: H("a"), size: 2 },
  theirs: { version, hash: H("b"), size: 3 },
  foundBy: "pull",
  at,
  reason: "changed here and on the datastore",
});

/** The record of the lockfile in the cache's conflicts file. */
async function saved(cacheDir: string): Promise<ConflictRecord | undefined> {
  const file = JSON.parse(await Deno.readTextFile(`${cacheDir}/.sluice/conflicts.json`));
  return file.conflicts[PATH];
}

/**
 * Processes `a` and `b` over one cache: `b` records the lockfile's conflict
 * against "v1", `a`'s pull (its last operation) reads it, then `meanwhile`
 * runs and `a` publishes the lockfile, settling its conflict.
 */
async function publishedAfter(meanwhile: (a: SyncService, b: SyncService) => Promise<void>) {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-lockfile-settle-" });
  const a = await processOver(store, cacheDir, 1);
  const b = await processOver(store, cacheDir, 2);
  await b.state.conflicts.record([conflict("v1", 1)]);
  await a.pullChanged();
  assert.equal(a.conflicts()[0]?.theirs?.version, "v1", "a's last operation read b's record");
  await meanwhile(a, b);
  const body = new TextEncoder().encode("{}");
  const put = await store.put(PATH, body, PutModes.create);
  await recordPublishedLockfile(a, PATH, body, put.version, undefined, null);
  return { a, cacheDir };
}

Deno.test("a lockfile publish settles the conflict its process's last operation read", async () => {
  const { a, cacheDir } = await publishedAfter(async () => {});
  assert.equal(await saved(cacheDir), undefined);
  assert.ok(!a.state.conflicts.has(PATH));
});

Deno.test("a lockfile publish keeps a newer conflict of the lockfile another process recorded after its process's last operation", async () => {
  const { a, cacheDir } = await publishedAfter(async (_a, b) => {
    await b.state.conflicts.record([conflict("v2", 2)]);
  });
  assert.equal((await saved(cacheDir))?.theirs?.version, "v2", "the newer record stands");
  assert.equal(a.state.conflicts.get(PATH)?.theirs?.version, "v2");
});

Deno.test("a lockfile publish keeps a newer conflict of the lockfile another process recorded, taken in by a save of another path outside an operation", async () => {
  const { a, cacheDir } = await publishedAfter(async (a, b) => {
    await b.state.conflicts.record([conflict("v2", 2)]);
    await a.state.conflicts.record([{ ...conflict("v9", 3), path: "x", mine: null }]);
    assert.equal(a.state.conflicts.get(PATH)?.theirs?.version, "v2", "taken in");
  });
  assert.equal((await saved(cacheDir))?.theirs?.version, "v2", "the newer record stands");
  assert.ok(a.state.conflicts.has(PATH));
});

Deno.test("a lockfile publish keeps a conflict of the lockfile another process recorded after resolving the one its process's last operation read", async () => {
  const { a, cacheDir } = await publishedAfter(async (_a, b) => {
    await b.state.conflicts.clear([PATH]);
    await b.state.conflicts.record([conflict("v2", 2)]);
  });
  assert.equal((await saved(cacheDir))?.theirs?.version, "v2", "the newer record stands");
  assert.ok(a.state.conflicts.has(PATH));
});
