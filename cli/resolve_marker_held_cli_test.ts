/**
 * `sluice resolve --mine` of a data version's deletion, whose push holds
 * back the `latest` marker it publishes with the deletion: the command says
 * theirs was deleted and names the marker as left behind, never success.
 * Met as a new conflict of its own, the marker is an open conflict (exit 3,
 * `conflicts_left`, as `status` says); waiting on another writer's upload no
 * index names, it is left for a later push (exit 2, `sync_incomplete`, with
 * the push's reason and what to run next).
 */
import assert from "node:assert/strict";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";
import { MARKER, RAW } from "../sync/service/resolve_under_marker_kit.ts";
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
