/**
 * A push about to take back an upload of this cache's that the index names
 * first looks whether the path's copy here was set aside as a lost
 * version's (`setAsideAsLost`): it reads the set-aside's `REASON.json` as
 * the module that writes it reads it back (`readSetAsideReason`), never in
 * a format of its own.
 */
import assert from "node:assert/strict";
import { LocalCache } from "../transfer/cache.ts";
import { readSetAsideReason, setAsideReasons } from "../transfer/cache_state.ts";
import { ConflictSet } from "./conflicts.ts";
import { setAsideAsLost } from "./set_aside_lost.ts";

const RAW = "data/acme/box/m3/state/1/raw";

/** A cache with `RAW` written, and the set-aside directory its copy goes to with `code`. */
async function setAside(
  code?: string,
  lostTo?: string,
): Promise<{ cache: LocalCache; dir: string }> {
  const cache = new LocalCache(await Deno.makeTempDir({ prefix: "sluice-push-delete-aside-" }));
  await cache.write(RAW, new TextEncoder().encode("a later run"));
  const location = await cache.setAside(
    RAW,
    "lost to another writer's version",
    code,
    undefined,
    lostTo,
  );
  return { cache, dir: location.split("/")[2] };
}

Deno.test("a copy set aside as a lost version's (version_exists) is read back as one by the push's look, as its writer's module reads it", async () => {
  const { cache, dir } = await setAside("version_exists");
  const why = await readSetAsideReason(cache.stateDir, dir);
  assert.equal(why?.path, RAW);
  assert.equal(why?.code, "version_exists");
  assert.equal(await setAsideAsLost(cache.stateDir, RAW, "v1"), true);
  assert.equal(await setAsideAsLost(cache.stateDir, "data/acme/box/m3/state/2/raw", "v1"), false);
  // Released by a resolution (the file rewritten with `released`): still the lost version's copy.
  await (await ConflictSet.open(cache.dir)).release({
    path: RAW,
    mine: { location: `.sluice/set-aside/${dir}/${RAW}`, hash: "", size: 0 },
    theirs: null,
    foundBy: "pull",
    at: 0,
    reason: "r",
  });
  assert.equal((await readSetAsideReason(cache.stateDir, dir))?.released, true);
  assert.equal(await setAsideAsLost(cache.stateDir, RAW, "v1"), true);
});

Deno.test("a lost version's copy that names the version it lost to speaks for that version only; one set aside before copies named it, for any", async () => {
  const { cache, dir } = await setAside("version_exists", "v1");
  assert.equal((await readSetAsideReason(cache.stateDir, dir))?.lostTo, "v1");
  assert.equal(await setAsideAsLost(cache.stateDir, RAW, "v1"), true);
  assert.equal(await setAsideAsLost(cache.stateDir, RAW, "v2"), false);
  const older = await setAside("version_exists");
  assert.equal(await setAsideAsLost(older.cache.stateDir, RAW, "v2"), true);
});

Deno.test("a copy set aside for another reason (no code, another code) is no lost version's to the push's look", async () => {
  for (const code of [undefined, "lockfile_malformed"]) {
    const { cache } = await setAside(code);
    assert.equal(await setAsideAsLost(cache.stateDir, RAW, "v1"), false, String(code));
  }
});

Deno.test("a damaged REASON.json gives the push's look the answer its writer's module gives: no reason, so no lost version's copy", async () => {
  for (
    const damage of [
      "{ torn",
      "null",
      '["version_exists"]',
      JSON.stringify({ path: 7, code: "version_exists" }),
      JSON.stringify({ path: RAW, code: ["version_exists"] }),
    ]
  ) {
    const { cache, dir } = await setAside("version_exists");
    await Deno.writeTextFile(`${cache.stateDir}/set-aside/${dir}/REASON.json`, damage);
    const why = await readSetAsideReason(cache.stateDir, dir);
    assert.ok(why?.path !== RAW || why.code !== "version_exists", damage);
    assert.deepEqual(
      (await setAsideReasons(cache.stateDir)).map((a) => a.why),
      [why],
      damage,
    );
    assert.equal(await setAsideAsLost(cache.stateDir, RAW, "v1"), false, damage);
  }
});
