/**
 * `status` of a data version deleted here whose `latest` marker here still
 * names it: a push by path holds that deletion back (`version-under-marker`),
 * so status names the marker to move first instead of "push it by path".
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { LOCAL_DELETION_REASON } from "./service.ts";
import { put } from "./clone_kit.ts";
import { DATA, MARKER, twoVersionsPublished } from "./resolve_under_marker_kit.ts";

const synced = () => twoVersionsPublished(new InMemoryStore());

Deno.test("status of a version deleted here under its marker names the marker to move, not a push by path", async () => {
  const a = await synced();
  await Deno.remove(`${a.cacheDir}/${DATA}/2`, { recursive: true });
  const status = await a.status({ walk: true });
  const raw = status.find((e) => e.path === `${DATA}/2/raw`);
  assert.equal(raw?.action, "skip");
  assert.notEqual(raw?.reason, LOCAL_DELETION_REASON);
  assert.match(raw!.reason!, /deleted here/);
  assert.ok(raw!.reason!.includes(`${MARKER} names this version (2)`), raw!.reason);
  assert.ok(raw!.reason!.includes(`sluice push ${DATA}/2 ${MARKER}`), raw!.reason);
  assert.match(raw!.reason!, /sluice pull --restore-deleted/);
  // Following it works: the marker moved, both pushed, the version is deleted.
  await put(a, MARKER, "1");
  const r = await a.pushChanged({ only: [`${DATA}/2`, MARKER] });
  assert.deepEqual([...r.deleted].sort(), [`${DATA}/2/metadata.yaml`, `${DATA}/2/raw`]);
});

Deno.test("status of a version deleted here that its marker does not name keeps the plain deletion reason", async () => {
  const a = await synced();
  await Deno.remove(`${a.cacheDir}/${DATA}/1`, { recursive: true });
  const status = await a.status({ walk: true });
  assert.deepEqual(
    status.map((e) => [e.path, e.reason]),
    [[`${DATA}/1/metadata.yaml`, LOCAL_DELETION_REASON], [`${DATA}/1/raw`, LOCAL_DELETION_REASON]],
  );
});
