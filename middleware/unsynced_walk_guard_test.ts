import assert from "node:assert/strict";
import { UNSYNCED_DIFFERS, unsyncedWalkGuard } from "./unsynced_walk_guard.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";
import {
  FakeClock,
  InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
} from "../packages/testing/mod.ts";
import { INDEX_KEY } from "../sync/transfer/remote_index.ts";
import { monolithBody } from "../sync/transfer/bucket_layout.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
import { createSyncService } from "../sync/service/service.ts";
import { sha256Hex } from "../sync/hash.ts";
import { pushLeftBehind } from "../sync/service/push_result.ts";
import { leftBehindError } from "../sync/left_behind.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const fast = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function seedIndex(store: InMemoryStore, files: Record<string, string>) {
  const entries: Record<string, { v: string; h: string; s: number }> = {};
  for (const [p, text] of Object.entries(files)) {
    const info = store.seed(p, text);
    entries[p] = { v: info.version, h: await sha256Hex(enc(text)), s: text.length };
  }
  store.seed(INDEX_KEY, new TextDecoder().decode(monolithBody(entries, new Date(0).toISOString())));
}

Deno.test("walk-found files never synced: same bytes are recorded, other bytes left out, new ones pushed", async () => {
  const store = new InMemoryStore();
  await seedIndex(store, { "logs/same.log": "same", "logs/peer.log": "peer's newer" });
  const m = await mockPushContext({
    store,
    kind: "walk",
    plan: [
      planEntry("logs/same.log", {
        class: "other",
        source: "walk",
        hash: await sha256Hex(enc("same")),
      }),
      planEntry("logs/peer.log", {
        class: "other",
        source: "walk",
        hash: await sha256Hex(enc("stale")),
      }),
      planEntry("logs/new.log", { class: "other", source: "walk", hash: "x" }),
      planEntry("logs/marked.log", { class: "other", source: "dirty", hash: "y" }),
    ],
  });
  const next = spyNext();
  await unsyncedWalkGuard()(m.ctx, next);
  assert.equal(next.calls, 1);
  const [same, peer, fresh, marked] = m.ctx.plan;
  assert.equal(same.action, "skip");
  assert.equal(m.state.synced("logs/same.log")?.hash, await sha256Hex(enc("same")));
  assert.equal(peer.action, "skip");
  assert.equal(peer.keepDirty, false);
  assert.equal(peer.unpublished, true, "other bytes: the local copy stays unpublished");
  assert.notEqual(same.unpublished, true, "same bytes: nothing is left unpublished");
  assert.deepEqual(m.warnings.map((w) => [w.code, w.path]), [[UNSYNCED_DIFFERS, "logs/peer.log"]]);
  assert.equal(fresh.action, "put");
  assert.equal(marked.action, "put", "a path marked by name keeps its own rule");
});

Deno.test("nothing to guard: no request", async () => {
  const store = new InMemoryStore();
  const synced = await mockPushContext({
    store,
    plan: [planEntry("logs/a.log", { class: "other", source: "walk", syncedVersion: "v1" })],
  });
  await unsyncedWalkGuard()(synced.ctx, spyNext());
  assert.equal(store.count(), 0);
});

Deno.test("a dry run (status) says what a push would do with walk-found files never synced, and records and tells nothing", async () => {
  const store = new InMemoryStore();
  await seedIndex(store, { "logs/same.log": "same", "logs/peer.log": "theirs" });
  const m = await mockPushContext({
    store,
    kind: "walk",
    plan: [
      planEntry("logs/same.log", {
        class: "other",
        source: "walk",
        hash: await sha256Hex(enc("same")),
      }),
      planEntry("logs/peer.log", {
        class: "other",
        source: "walk",
        hash: await sha256Hex(enc("mine")),
      }),
    ],
  });
  await unsyncedWalkGuard()({ ...m.ctx, dryRun: true } as PushContext, spyNext());
  const [same, peer] = m.ctx.plan;
  assert.deepEqual([same.action, peer.action], ["skip", "skip"]);
  assert.equal(peer.unpublished, true, "a push would leave it unpublished");
  assert.equal(m.state.synced("logs/same.log"), undefined, "nothing recorded");
  assert.deepEqual(m.warnings, [], "nothing told");
});

async function lostStateScenario(withGate: boolean) {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  if (withGate) {
    push.add({ name: "unsynced-walk-guard", phase: "guard", middleware: unsyncedWalkGuard() });
  }
  const open = async (dir: string, name: string) =>
    await createSyncService({
      cacheDir: dir,
      store,
      clock,
      push,
      identity: { holder: `${name}@h`, hostname: "h", pid: 1 },
      config: fast,
    });
  const a = await open(await Deno.makeTempDir({ prefix: "sluice-a-" }), "a");
  const b = await open(await Deno.makeTempDir({ prefix: "sluice-b-" }), "b");
  const marker = "data/t/m/d/latest";
  await Deno.mkdir(`${a.cacheDir}/data/t/m/d`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/${marker}`, "1");
  await a.markDirty({ relPath: marker });
  await a.pushChanged();
  await b.pullChanged();
  await Deno.writeTextFile(`${b.cacheDir}/${marker}`, "2");
  await b.markDirty({ relPath: marker });
  await b.pushChanged(); // B's acknowledged write: latest = 2
  // A's sync state is lost (a corrupted manifest): the next push walks everything.
  await Deno.writeTextFile(`${a.cacheDir}/.sluice/manifest.json`, "{corrupt");
  const again = await open(a.cacheDir, "a");
  const warnings: string[] = [];
  again.events.on("warning", (w) => warnings.push(w.code));
  const pushed = await again.pushChanged();
  return { store, marker, again, warnings, pushed };
}

Deno.test("lost sync state, gate off: a walk push rolls a peer's newer marker back (the loss)", async () => {
  const { store, marker } = await lostStateScenario(false);
  assert.equal(store.peekText(marker), "1");
});

Deno.test("lost sync state, gate on: the peer's marker survives, A is told, and A's next pull sets its copy aside", async () => {
  const { store, marker, again, warnings, pushed } = await lostStateScenario(true);
  assert.equal(store.peekText(marker), "2");
  assert.ok(warnings.includes(UNSYNCED_DIFFERS));
  // A's copy was not published: the push left work behind (the command line exits 2).
  assert.deepEqual(pushLeftBehind(pushed).left.map((l) => l.path), [marker]);
  assert.equal(leftBehindError("push", pushLeftBehind(pushed))?.code, "sync_incomplete");
  const pulled = await again.pullChanged();
  assert.equal(pulled.setAside.length, 1);
  assert.equal(await Deno.readTextFile(`${again.cacheDir}/${marker}`), "2");
  assert.equal(await Deno.readTextFile(`${again.cacheDir}/${pulled.setAside[0]}`), "1");
});
