/**
 * `sluice resolve --mine` of a data version's deletion, whose push holds
 * back the `latest` marker it publishes with the deletion: the command says
 * theirs was deleted and names the marker as left behind, never success.
 * Met as a new conflict of its own, the marker is an open conflict (exit 3,
 * `conflicts_left`, as `status` says); waiting on another writer's upload no
 * index names, it is left for a later push (exit 2, `sync_incomplete`, with
 * the push's reason and what to run next). A later resolution of the same
 * command that settles what an earlier one's push left is the last word.
 */
import assert from "node:assert/strict";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";
import { InMemoryStore, peerPush } from "../packages/testing/mod.ts";
import { clone, put } from "../sync/service/clone_kit.ts";
import { DATA, MARKER, RAW } from "../sync/service/resolve_under_marker_kit.ts";
import { type MarkerMoved, markerMovedOn } from "../sync/service/resolve_marker_left_kit.ts";

const URL = "s3://mem/?endpoint=http://127.0.0.1:9";

async function resolvedMine(moved: MarkerMoved) {
  const { store, a } = await markerMovedOn(moved);
  const run = (args: string[]) =>
    sluice([...args, "--cache", a.cacheDir, "--store", URL], {
      openStore: (spec: StoreSpec) => ({ store, spec, close: () => {} }),
    });
  const r = await run(["resolve", RAW, "--mine"]);
  assert.match(r.out, /^Deleted \S+ on \S+ \(your deletion\)\.$/m, r.out);
  assert.equal(store.peekText(RAW), undefined, "theirs deleted");
  return { r, status: await run(["status"]) };
}

Deno.test("sluice resolve --mine whose push meets a new conflict of the marker pushed with the deletion: exit 3, the marker named", async () => {
  const { r, status } = await resolvedMine("committed");
  assert.equal(r.code, 3, `${r.out}\n${r.err}`);
  assert.match(r.err, /\[conflicts_left\]/, r.err);
  assert.ok(r.err.includes(`(${MARKER})`), r.err);
  assert.ok(r.err.includes("sluice resolve <path> --mine|--theirs|--merged"), r.err);
  assert.equal(status.code, 3, `${status.out}\n${status.err}`);
});

Deno.test("sluice resolve --mine whose push holds the marker pushed with the deletion (another writer's upload no index names): exit 2, the marker named with its reason", async () => {
  const { r, status } = await resolvedMine("uploaded");
  assert.equal(r.code, 2, `${r.out}\n${r.err}`);
  assert.match(r.err, /\[sync_incomplete\]/, r.err);
  assert.ok(r.err.includes(`${MARKER}: `), r.err);
  assert.ok(r.err.includes("uncommitted write"), r.err);
  assert.ok(r.err.includes("Run `sluice status"), r.err);
  assert.equal(status.code, 2, `${status.out}\n${status.err}`);
});

Deno.test("sluice resolve --mine whose push publishes the marker with the deletion: exit 0", async () => {
  const { r, status } = await resolvedMine("none");
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.equal(status.code, 0, `${status.out}\n${status.err}`);
});

Deno.test("sluice resolve <dir> --mine: the marker's conflict met by the push of a version's deletion, then settled by the marker's own resolution in the same run: exit 0", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  for (const n of ["1", "2", "3"]) {
    await put(a, `${DATA}/${n}/raw`, `version ${n}`);
    await put(a, `${DATA}/${n}/metadata.yaml`, `version: ${n}`);
  }
  await put(a, MARKER, "3");
  await a.pushChanged();
  // Version 1 deleted here and the marker moved to 2, while another client
  // published version 1's raw again and a version 4, its marker naming it.
  const raw1 = `${DATA}/1/raw`;
  await Deno.remove(`${a.cacheDir}/${DATA}/1`, { recursive: true });
  await put(a, MARKER, "2");
  await a.markDirty({ relPaths: [raw1, `${DATA}/1/metadata.yaml`] });
  await peerPush(store, {
    [raw1]: "theirs 1",
    [`${DATA}/4/raw`]: "version 4",
    [`${DATA}/4/metadata.yaml`]: "version: 4",
    [MARKER]: "4",
  });
  assert.deepEqual((await a.pullChanged()).conflicts, [raw1, MARKER]);
  const run = (args: string[]) =>
    sluice([...args, "--cache", a.cacheDir, "--store", URL], {
      openStore: (spec: StoreSpec) => ({ store, spec, close: () => {} }),
    });
  const r = await run(["resolve", DATA, "--mine"]);
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.equal(store.peekText(raw1), undefined, "theirs of version 1 deleted");
  assert.equal(store.peekText(MARKER), "2", "the marker here published");
  const status = await run(["status"]);
  assert.equal(status.code, 0, `${status.out}\n${status.err}`);
});
