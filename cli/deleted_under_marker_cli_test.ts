/**
 * `sluice push` and `sluice pull` of a cache where a data version was deleted
 * here while its `latest` marker here still names it: a push by path holds
 * that deletion back (`version-under-marker`, exit 2), so the lines and the
 * `sync_incomplete` warning (the status's too) name the marker to move
 * first, as the status's reason beside each does.
 */
import assert from "node:assert/strict";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { clone, put } from "../sync/service/clone_kit.ts";

const URL = "s3://mem/?endpoint=http://127.0.0.1:9";
const DATA = "data/shell/cmd/m1/out";
const MARKER = `${DATA}/latest`;
// The command line names the cache in each command it gives (`--cache <dir>` after the paths).
const PUSH_BOTH = `sluice push ${DATA}/2 ${MARKER}`;

/** A cache that pushed versions 1 and 2 of `DATA`, its marker naming 2, then deleted version `n` here. */
async function deleted(n: string) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const v of ["1", "2"]) {
    await put(a, `${DATA}/${v}/raw`, `version ${v}`);
    await put(a, `${DATA}/${v}/metadata.yaml`, `version: ${v}`);
  }
  await put(a, MARKER, "2");
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  await Deno.remove(`${a.cacheDir}/${DATA}/${n}`, { recursive: true });
  const run = (args: string[]) =>
    sluice([...args, "--cache", a.cacheDir, "--store", URL], {
      openStore: (spec: StoreSpec) => ({ store, spec, close: () => {} }),
    });
  return { store, run, cacheDir: a.cacheDir };
}

Deno.test("push of a cache with a version deleted here under its marker names the marker to move, not a push by path", async () => {
  const { store, run, cacheDir } = await deleted("2");
  const r = await run(["push"]);
  assert.equal(r.code, 2, `${r.out}\n${r.err}`);
  assert.match(r.out, /Not deleted on the datastore: 2 files deleted here/);
  assert.ok(r.out.includes(`${MARKER} names this version (2)`), r.out);
  assert.ok(r.out.includes(PUSH_BOTH), r.out);
  assert.doesNotMatch(r.out, /Run `sluice push <path>…[^`]*` naming them/);
  assert.match(r.err, /warning\[sync_incomplete\]/);
  assert.ok(r.err.includes(PUSH_BOTH), r.err);
  assert.doesNotMatch(r.err, /run `sluice push <path>…[^`]*` naming them/);
  // The status's warning says it the same way.
  const status = await run(["status"]);
  assert.equal(status.code, 2, `${status.out}\n${status.err}`);
  assert.ok(status.err.includes(PUSH_BOTH), status.err);
  assert.doesNotMatch(status.err, /run `sluice push <path>…[^`]*` naming them/);
  // Following it works: the marker moved, both pushed, the version is deleted.
  await Deno.writeTextFile(`${cacheDir}/${MARKER}`, "1");
  const both = await run(["push", `${DATA}/2`, MARKER]);
  assert.equal(both.code, 0, `${both.out}\n${both.err}`);
  assert.equal(store.peekText(`${DATA}/2/raw`), undefined);
});

Deno.test("pull of a cache with a version deleted here under its marker names the marker to move, not a push by path", async () => {
  const { run } = await deleted("2");
  const r = await run(["pull"]);
  assert.equal(r.code, 2, `${r.out}\n${r.err}`);
  assert.match(r.out, /Kept deleted here \(a pull keeps a local deletion\): 2 files/);
  assert.ok(r.out.includes(`${MARKER} names this version (2)`), r.out);
  assert.ok(r.out.includes(PUSH_BOTH), r.out);
  assert.doesNotMatch(r.out, /Run `sluice push <path>…[^`]*` naming them/);
  assert.match(r.err, /warning\[sync_incomplete\]/);
  assert.ok(r.err.includes(PUSH_BOTH), r.err);
  assert.doesNotMatch(r.err, /run `sluice push <path>…[^`]*` naming them/);
});

Deno.test("push and pull of a version deleted here that its marker does not name keep the advice to push it by path", async () => {
  const { run } = await deleted("1");
  for (const cmd of ["push", "pull"]) {
    const r = await run([cmd]);
    assert.equal(r.code, 2, `${r.out}\n${r.err}`);
    assert.match(r.out, /Run `sluice push <path>…[^`]*` naming them/);
    assert.match(r.err, /run `sluice push <path>…[^`]*` naming them/);
    assert.doesNotMatch(`${r.out}${r.err}`, /names this version/);
  }
});

Deno.test("push and pull of a version deleted here under its marker beside one it does not name: the others are pushed by path, the held ones as the line beside says", async () => {
  const { run, cacheDir } = await deleted("2");
  await Deno.remove(`${cacheDir}/${DATA}/1`, { recursive: true });
  for (const cmd of ["push", "pull"]) {
    const r = await run([cmd]);
    assert.equal(r.code, 2, `${r.out}\n${r.err}`);
    assert.match(r.out, new RegExp(`\n {2}${DATA}/1/raw\n`));
    assert.ok(r.out.includes(`${DATA}/2/raw: deleted here, but the latest marker`), r.out);
    assert.match(r.out, /Run `sluice push <path>…[^`]*` naming the others/);
    assert.match(
      r.out,
      /for one whose latest marker here names its version, do what the line beside it says/,
    );
    assert.match(r.err, /run `sluice push <path>…[^`]*` naming the others; for /);
    assert.ok(r.err.includes(PUSH_BOTH), r.err);
  }
});
