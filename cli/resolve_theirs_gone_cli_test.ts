/**
 * `sluice resolve --theirs` of a conflict whose theirs is another writer's
 * upload no index names: the command says what it did, and the way on it
 * names (`sluice pull --adopt-uncommitted <path>`) works, whether that
 * upload still stands or is gone since.
 */
import assert from "node:assert/strict";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";
import { PutModes } from "../sync/ports.ts";
import {
  conflictWithUpload as uploadInConflict,
  PATH,
} from "../sync/service/resolve_upload_kit.ts";
const URL = "s3://mem/?endpoint=http://127.0.0.1:9";

/** `a`'s edit in conflict with `c`'s upload over `b`'s committed edit, its commit cut off. */
async function conflictWithUpload() {
  const { store, a } = await uploadInConflict();
  const run = (args: string[]) =>
    sluice([...args, "--cache", a.cacheDir, "--store", URL], {
      openStore: (spec: StoreSpec) => ({ store, spec, close: () => {} }),
    });
  return { store, run, cacheDir: a.cacheDir, upload: (await store.head(PATH))!.version };
}

const text = (dir: string, p: string) => Deno.readTextFile(`${dir}/${p}`).catch(() => undefined);

Deno.test("sluice resolve --theirs whose theirs, an upload no index names, still stands: not taken, and the adoption it names lets it be taken", async () => {
  const { run, cacheDir } = await conflictWithUpload();
  const first = await run(["resolve", PATH, "--theirs"]);
  assert.notEqual(first.code, 0, first.err);
  const advice = `sluice pull --adopt-uncommitted ${PATH}`;
  assert.ok(first.out.includes(advice), first.out);
  const adopted = await run(["pull", "--adopt-uncommitted", PATH]);
  assert.doesNotMatch(adopted.err, /nothing was adopted/, adopted.err);
  const again = await run(["resolve", PATH, "--theirs"]);
  assert.equal(again.code, 0, `${again.out}\n${again.err}`);
  assert.equal(await text(cacheDir, PATH), "c's edit");
  assert.equal((await run(["status"])).code, 0);
});

Deno.test("sluice resolve --theirs whose theirs, an upload no index names, is gone since: takes what a pull gives, says so, and the adoption it names takes what is there", async () => {
  const { store, run, cacheDir, upload } = await conflictWithUpload();
  // Its writer took it back: the committed bytes put back, never named.
  await store.delete(PATH, { ifVersion: upload });
  await store.put(PATH, new TextEncoder().encode("b's edit"), PutModes.create);
  const r = await run(["resolve", PATH, "--theirs"]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /no longer on the datastore/);
  assert.match(r.out, /your copy stays in /);
  const advice = `sluice pull --adopt-uncommitted ${PATH}`;
  assert.ok(r.out.includes(advice), r.out);
  assert.equal(await text(cacheDir, PATH), undefined);
  const adopted = await run(["pull", "--adopt-uncommitted", PATH]);
  assert.equal(adopted.code, 0, `${adopted.out}\n${adopted.err}`);
  assert.equal(await text(cacheDir, PATH), "b's edit");
  assert.equal((await run(["status"])).code, 0);
});
