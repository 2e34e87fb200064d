import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { peerPush } from "../packages/testing/layout_peer.ts";

const CFG = "config/app.yaml";

// Seen against MinIO: two clones push the same data version at once;
// the loser waits (push_waiting_uncommitted, exit 2), the winner commits, the
// loser's pull records a conflict at the version's raw, and its marker alone
// is left "waiting". `sluice status` then names the way out as
// "`sluice push  --cache <dir>` ends the wait": a command with no
// --adopt-uncommitted in it at all, which ends no wait.
Deno.test("status never names a `sluice push` with no --adopt-uncommitted as the way to end a wait", async () => {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, CFG, "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  const V = "data/shell/cmd/m1/out/1";
  const store = new FsStore({ root: w.root });
  // Another writer's upload of version 1, not committed yet.
  await store.put(`${V}/raw`, new TextEncoder().encode("a's run"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "racing-peer" },
  });
  await w.write(b, `${V}/raw`, "b's run");
  // Other bytes than the other writer's, so the pull meets both files as conflicts.
  await w.write(b, `${V}/metadata.yaml`, "version: 1\nby: b\n");
  await w.write(b, "data/shell/cmd/m1/out/latest", "1");
  const waiting = await sluice(["push", "--cache", b]);
  assert.equal(waiting.code, 2, waiting.err);
  assert.match(waiting.err, /push_waiting_uncommitted/);
  // The other writer's commit lands; b's pull meets it as a conflict at the raw.
  await peerPush(store, { [`${V}/raw`]: "a's run", [`${V}/metadata.yaml`]: "version: 1\n" });
  const pulled = await sluice(["pull", "--cache", b]);
  assert.equal(pulled.code, 3, pulled.err);
  const status = await sluice(["status", "--cache", b]);
  const hint = status.out.split("\n").find((l) => l.includes("ends the wait"));
  if (hint !== undefined) {
    assert.doesNotMatch(hint, /`sluice push\s+--cache/, hint);
    assert.match(hint, /--adopt-uncommitted \S/, hint);
  }
  // Only the marker waits, with its version in conflict: nothing to adopt, and said so.
  assert.doesNotMatch(status.out, /`sluice push\s+`/, status.out);
  assert.match(
    status.out,
    /nothing is left to adopt\. Where the version is in a conflict listed here, resolve it first/,
    status.out,
  );
  // The version's raw in conflict: --mine is not offered as a way to publish over theirs.
  assert.match(
    status.out,
    /a data version, never written over: --mine and --merged end in version_exists, setting yours aside/,
  );
  const mine = await sluice(["resolve", `${V}/raw`, "--mine", "--cache", b]);
  assert.notEqual(mine.code, 0);
  assert.match(mine.err, /version_exists/);
  assert.match(mine.err, /set aside/);
  await w.cleanup();
});
