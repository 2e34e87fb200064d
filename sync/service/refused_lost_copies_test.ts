import assert from "node:assert/strict";
import { VersionConflictError } from "../errors.ts";
import { ModelLockLostError } from "../lock_errors.ts";
import { removeSetAside, setAsideIn, setAsideReasons } from "../transfer/cache_state.ts";
import { dropRefusedCopies } from "./refused_lost_copies.ts";

/** A state directory holding set-aside copies of `paths`, and their locations. */
async function setAside(paths: readonly string[]) {
  const root = await Deno.makeTempDir({ prefix: "sluice-refused-copies-" });
  const stateDir = `${root}/.sluice`;
  const locations: string[] = [];
  for (const [i, p] of paths.entries()) {
    const from = `${root}/${p}`;
    await Deno.mkdir(from.slice(0, from.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(from, p);
    locations.push(
      await setAsideIn(stateDir, from, p, { reason: "lost", code: "version_exists", at: i }),
    );
  }
  return { stateDir, locations };
}

const refusal = (discarded: string[]) => {
  const e = new ModelLockLostError([{ key: "data/t/m/.lock", newHolder: null }]);
  e.discarded = discarded;
  return e;
};

Deno.test("dropRefusedCopies removes the copies of the versions a refusal discarded, and no other", async () => {
  const paths = ["data/t/m/d/2/raw", "data/t/m/d/2/metadata.yaml", "data/t/m/d/20/raw"];
  const { stateDir, locations } = await setAside(paths);
  const lost = new VersionConflictError(paths, locations);
  const gone = await dropRefusedCopies(stateDir, lost, refusal(["data/t/m/d/2"]));
  assert.deepEqual(gone, locations.slice(0, 2));
  const left = (await setAsideReasons(stateDir)).map((r) => r.why?.path);
  assert.deepEqual(left, ["data/t/m/d/20/raw"]);
});

Deno.test("dropRefusedCopies keeps every copy for a failure that is no refusal for a lost lock", async () => {
  const { stateDir, locations } = await setAside(["data/t/m/d/2/raw"]);
  const lost = new VersionConflictError(["data/t/m/d/2/raw"], locations);
  assert.deepEqual(await dropRefusedCopies(stateDir, lost, new Error("other")), []);
  assert.deepEqual(
    await dropRefusedCopies(stateDir, new Error("x"), refusal(["data/t/m/d/2"])),
    [],
  );
  assert.equal((await setAsideReasons(stateDir)).length, 1);
});

Deno.test("removeSetAside removes one copy's set-aside directory, and refuses a location outside the area", async () => {
  const { stateDir, locations } = await setAside(["a/b.txt"]);
  await removeSetAside(stateDir, locations[0]);
  await removeSetAside(stateDir, locations[0]); // gone: nothing
  assert.deepEqual(await setAsideReasons(stateDir), []);
  for (const bad of [".sluice/set-aside/../x", ".sluice/other/s/a", ".sluice/set-aside/s", "a/b"]) {
    await assert.rejects(removeSetAside(stateDir, bad), /names no set-aside copy/);
  }
});
