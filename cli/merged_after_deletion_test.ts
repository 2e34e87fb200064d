/**
 * A conflict whose side here is a deletion: `--merged` publishes the file
 * at the path, so where the choices are offered (the pull's and the push's
 * warnings, the status's list) they say a merged file is written there
 * first, and a `--merged` with nothing there is refused with its code.
 */
import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";

const CFG = "config/app.yaml";
const WRITE_FIRST = /--merged publishes a file: write the merged file at config\/app\.yaml first/;

/** Caches `a` and `b` of one store synced `x: 1`; `a` then published `x: 2`, and `b` deleted the file by hand. */
async function deletedHere() {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, CFG, "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  await w.write(a, CFG, "x: 2\n");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  await Deno.remove(`${b}/${CFG}`);
  return { w, b };
}

Deno.test("a pull that meets a deletion here says --merged needs the merged file written first; status says it beside the deletion; --merged with nothing there is refused", async () => {
  const { w, b } = await deletedHere();
  const pulled = await sluice(["pull", "--cache", b]);
  assert.equal(pulled.code, 3, pulled.err);
  assert.match(
    pulled.err,
    /warning\[pull_conflict\]: config\/app\.yaml .*its deletion here stands/,
  );
  assert.match(pulled.err, WRITE_FIRST);

  const status = await sluice(["status", "--cache", b]);
  assert.match(
    status.out,
    /mine: +deleted here \(--merged publishes a file: write the merged file/,
  );

  const refused = await sluice(["resolve", CFG, "--merged", "--cache", b, "--json"]);
  assert.equal(refused.code, 1, refused.err);
  const error = refused.json().error as { code: string; message: string };
  assert.equal(error.code, "not_found");
  assert.match(error.message, /There is no file at config\/app\.yaml to publish as your merge/);
  assert.match(
    error.message,
    /to delete it on the datastore, run `sluice resolve config\/app\.yaml --mine --cache /,
  );

  // Written there first, the merge is published.
  await Deno.writeTextFile(`${b}/${CFG}`, "x: 3\n");
  const merged = await sluice(["resolve", CFG, "--merged", "--cache", b]);
  assert.equal(merged.code, 0, merged.err);
  await w.cleanup();
});

Deno.test("a deletion pushed by name that meets a peer's edit says --merged needs the merged file written first", async () => {
  const { w, b } = await deletedHere();
  const pushed = await sluice(["push", CFG, "--cache", b]);
  assert.equal(pushed.code, 3, pushed.err);
  assert.match(
    pushed.err,
    /warning\[delete_skipped\]: .*--mine deletes it over that version, --theirs brings it back/,
  );
  assert.match(pushed.err, WRITE_FIRST);
  await w.cleanup();
});
