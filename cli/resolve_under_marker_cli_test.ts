/**
 * `sluice resolve --mine` of a conflict whose side here is the deletion of a
 * data version its `latest` marker here names: refused (exit 1,
 * `version_under_marker`), nothing changed, the conflict still listed by
 * `status`; the ways on it names both work. So too where the committed
 * marker names that version and the marker here names one nowhere.
 */
import assert from "node:assert/strict";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";
import {
  deletedUnderMarker,
  MARKER,
  RAW,
  THEIRS,
} from "../sync/service/resolve_under_marker_kit.ts";

const URL = "s3://mem/?endpoint=http://127.0.0.1:9";

async function conflicted(markerHere?: string) {
  const { store, a } = await deletedUnderMarker(markerHere);
  const run = (args: string[]) =>
    sluice([...args, "--cache", a.cacheDir, "--store", URL], {
      openStore: (spec: StoreSpec) => ({ store, spec, close: () => {} }),
    });
  return { store, run, cacheDir: a.cacheDir };
}

/**
 * `--mine` refused with `version_under_marker`, nothing changed (theirs on the
 * datastore, the conflict listed), then `--theirs` taking theirs; the refusal's answer.
 */
async function refusedThenTheirs(
  { store, run, cacheDir }: Awaited<ReturnType<typeof conflicted>>,
): Promise<{ out: string; err: string }> {
  const r = await run(["resolve", RAW, "--mine"]);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.match(r.err, /error\[version_under_marker\]/);
  assert.match(r.err, /Nothing was changed: the conflict stays open/);
  assert.ok(r.err.includes(`sluice resolve ${RAW} --theirs`), r.err);
  assert.equal(store.peekText(RAW), THEIRS);
  const status = await run(["status"]);
  assert.equal(status.code, 3, `${status.out}\n${status.err}`);
  assert.ok(`${status.out}${status.err}`.includes(RAW));
  const took = await run(["resolve", RAW, "--theirs"]);
  assert.equal(took.code, 0, `${took.out}\n${took.err}`);
  assert.equal(await Deno.readTextFile(`${cacheDir}/${RAW}`), THEIRS);
  return r;
}

Deno.test("sluice resolve --mine of a deletion of a version its marker names is refused with version_under_marker, the conflict open; --theirs then takes theirs", async () => {
  const { store, run, cacheDir } = await conflicted();
  const r = await refusedThenTheirs({ store, run, cacheDir });
  assert.ok(r.err.includes(`sluice push ${MARKER}`), r.err);
});

Deno.test("sluice resolve --mine of that deletion, the marker moved to another version and pushed first, deletes theirs", async () => {
  const { store, run, cacheDir } = await conflicted();
  assert.equal((await run(["resolve", RAW, "--mine"])).code, 1);
  await Deno.writeTextFile(`${cacheDir}/${MARKER}`, "1");
  const pushed = await run(["push", MARKER]);
  assert.equal(pushed.code, 0, `${pushed.out}\n${pushed.err}`);
  const r = await run(["resolve", RAW, "--mine"]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /Deleted /);
  assert.equal(store.peekText(RAW), undefined);
});

Deno.test("sluice resolve --mine of a deletion of the version the committed marker names, the marker here naming a version nowhere, is refused with version_under_marker, the conflict open", async () => {
  const { store, run, cacheDir } = await conflicted("7");
  await refusedThenTheirs({ store, run, cacheDir });
});
