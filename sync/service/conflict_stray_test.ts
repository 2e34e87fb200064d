import assert from "node:assert/strict";
import { strayCopy } from "./conflict_stray.ts";
import { defaultStateDir, statePath } from "../transfer/cache.ts";
import { releaseSetAside, setAsideIn, setAsideReasons } from "../transfer/cache_state.ts";

const PATH = "notes/a.md";
const H = (c: string) => c.repeat(64);

/** A copy of PATH set aside in `cacheDir` as a pull does, `conflict` in its REASON.json. */
async function setAside(cacheDir: string, conflict?: unknown): Promise<string> {
  await Deno.mkdir(`${cacheDir}/notes`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${PATH}`, "mine");
  return await setAsideIn(
    defaultStateDir(cacheDir),
    `${cacheDir}/${PATH}`,
    PATH,
    {
      reason: "the pull found a local copy this cache never synced",
      at: 7,
      ...(conflict ? { conflict } : {}),
    } as Parameters<typeof setAsideIn>[3],
  );
}

/** strayCopy of the only set-aside directory in `cacheDir`. */
async function stray(cacheDir: string) {
  const stateDir = defaultStateDir(cacheDir);
  const [{ dir, why }] = await setAsideReasons(stateDir);
  return await strayCopy(stateDir, dir, why);
}

const CONFLICT = {
  mine: { hash: H("a"), size: 4 },
  theirs: { version: "v2", hash: H("b"), size: 6 },
  reason: "both changed",
};

Deno.test("strayCopy names again a copy a pull set aside in a conflict, as the record its REASON.json keeps", async () => {
  const cacheDir = await Deno.makeTempDir();
  const location = await setAside(cacheDir, CONFLICT);
  const found = await stray(cacheDir);
  assert.ok(found, "named again");
  assert.deepEqual(found.side, { location, hash: H("a"), size: 4 });
  assert.equal(found.rec.path, PATH);
  assert.deepEqual(found.rec.mine, found.side);
  assert.deepEqual(found.rec.theirs, CONFLICT.theirs);
  assert.equal(found.rec.at, 7);
  assert.match(found.rec.reason, /^both changed \(named again from the copy's REASON\.json/);
});

Deno.test("strayCopy leaves a copy released by a resolution, one set aside in no conflict, and one no longer there", async () => {
  const released = await Deno.makeTempDir();
  const location = await setAside(released, CONFLICT);
  await releaseSetAside(defaultStateDir(released), location, PATH);
  assert.equal(await stray(released), undefined, "released");

  const noConflict = await Deno.makeTempDir();
  await setAside(noConflict);
  assert.equal(await stray(noConflict), undefined, "no conflict recorded");

  const gone = await Deno.makeTempDir();
  const at = await setAside(gone, CONFLICT);
  await Deno.remove(statePath(defaultStateDir(gone), at));
  assert.equal(await stray(gone), undefined, "the copy is gone");
});
