import assert from "node:assert/strict";
import { createSluice } from "../sluice.ts";
import { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import type { SyncService } from "../sync/service/service.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import {
  MARKER_AFTER_VERSION,
  markerHeldReason,
  markerNotANumberReason,
  markerUnfinishedReason,
  markerUnlistedReason,
} from "./marker_after_version.ts";

const OUT = "data/shell/cmd/m1/out";
const MARKER = `${OUT}/latest`;
const enc = new TextEncoder();
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

async function service(store: InMemoryStore, disable: string[] = []): Promise<SyncService> {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-marker-" }),
    store,
    identity: { holder: "w@host", hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: { retry },
    conditional: new ConditionalWrites(),
    ...(disable.length ? { disable } : {}),
  });
}

async function write(svc: SyncService, path: string, text: string): Promise<void> {
  await svc.cache.write(path, enc.encode(text));
  await svc.markDirty({ relPath: path });
}

/** Version 2 written here and held back by another writer's upload in the way; then the marker alone pushed. */
async function markerAlone(disable: string[] = []) {
  const store = new InMemoryStore();
  const svc = await service(store, disable);
  await write(svc, `${OUT}/1/raw`, "first");
  await write(svc, MARKER, "1");
  await svc.pushChanged();
  await store.put(`${OUT}/2/raw`, enc.encode("a's"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "a-writer" },
  });
  await write(svc, `${OUT}/2/raw`, "second");
  await write(svc, MARKER, "2");
  await svc.pushChanged();
  const alone = await svc.pushChanged({ only: [MARKER] });
  return { store, svc, alone };
}

Deno.test("a marker pushed alone ahead of the version it names is held, dirty, and goes with that version", async () => {
  const { store, svc, alone } = await markerAlone();
  assert.equal(store.peekText(MARKER), "1", "readers still pointed at a published version");
  assert.deepEqual(alone.uploaded, []);
  assert.deepEqual(alone.skipped, [{
    path: MARKER,
    reason: markerHeldReason(`${OUT}/2`),
    keepDirty: true,
  }]);
  assert.ok(svc.state.dirtyPaths().includes(MARKER));
  // status, a dry run that runs no write gate, says so from what the push recorded.
  const { leftBehind } = await svc.statusReport();
  assert.ok(leftBehind.left.some((l) => l.path === MARKER && l.reason.includes(`${OUT}/2`)));
  // That writer's upload erased: the whole cache's push publishes the version, then the marker.
  await store.delete(`${OUT}/2/raw`);
  await svc.pushChanged();
  assert.equal(store.peekText(MARKER), "2");
  const named = (await readIndex(store, retry))?.entries ?? {};
  assert.ok(Object.hasOwn(named, `${OUT}/2/raw`));
});

Deno.test("without the gate, the marker pushed alone points readers at a version the index does not list", async () => {
  const { store } = await markerAlone([MARKER_AFTER_VERSION]);
  assert.equal(store.peekText(MARKER), "2");
  const named = (await readIndex(store, retry))?.entries ?? {};
  assert.ok(!Object.hasOwn(named, `${OUT}/2/raw`));
});

Deno.test("a marker naming a version published (here, or only by another writer) is pushed; one naming a version nowhere is held", async () => {
  const store = new InMemoryStore();
  const svc = await service(store);
  await write(svc, `${OUT}/1/raw`, "first");
  await write(svc, `${OUT}/2/raw`, "second");
  await write(svc, MARKER, "2");
  await svc.pushChanged();
  await write(svc, MARKER, "1");
  assert.deepEqual((await svc.pushChanged({ only: [MARKER] })).uploaded, [MARKER]);
  // Version 3, another writer's, published: this cache never pulled it.
  const other = await service(store);
  await other.pullChanged();
  await write(other, `${OUT}/3/raw`, "third, by another writer");
  await other.pushChanged({ only: [`${OUT}/3/raw`] });
  await write(svc, MARKER, "3");
  assert.deepEqual((await svc.pushChanged({ only: [MARKER] })).uploaded, [MARKER]);
  // Version 7 is nowhere: no reader could follow the marker.
  await write(svc, MARKER, "7");
  const held = await svc.pushChanged({ only: [MARKER] });
  assert.deepEqual(held.uploaded, []);
  assert.deepEqual(held.skipped, [{
    path: MARKER,
    reason: markerUnlistedReason(`${OUT}/7`),
    keepDirty: true,
  }]);
  assert.equal(store.peekText(MARKER), "3");
  assert.ok(svc.describe().write.some((line) => line.includes(MARKER_AFTER_VERSION)));
});

Deno.test("files no push publishes (a crashed write's temp file) are no part of the version: its marker goes with it", async () => {
  const store = new InMemoryStore();
  const svc = await service(store);
  await write(svc, `${OUT}/2/raw`, "two");
  await write(svc, `${OUT}/2/metadata.yaml`, "m2");
  await write(svc, MARKER, "2");
  await Deno.writeTextFile(`${svc.cacheDir}/${OUT}/2/raw.sluice-0123abcdef.tmp`, "partial");
  await Deno.writeTextFile(
    `${svc.cacheDir}/${OUT}/2/.0123abcd-0123-4567-89ab-0123456789ab.tmp`,
    "p",
  );
  const r = await svc.pushChanged();
  assert.deepEqual(r.skipped, []);
  assert.equal(store.peekText(MARKER), "2");
});

Deno.test("a marker rewritten here while the push ran (another step finalizing version 2) is judged by the bytes written: held", async () => {
  const store = new InMemoryStore();
  const svc = await service(store);
  await write(svc, `${OUT}/1/raw`, "one");
  await write(svc, MARKER, "1");
  await write(svc, "notes/x", "x");
  const put = store.put.bind(store);
  let once = false;
  store.put = async (k, b, m, o) => {
    if (k === "notes/x" && !once) {
      once = true;
      await write(svc, `${OUT}/2/raw`, "two");
      await write(svc, MARKER, "2");
    }
    return await put(k, b, m, o);
  };
  await svc.pushChanged();
  store.put = put;
  assert.equal(store.peekText(MARKER), undefined, "not published naming version 2");
  assert.ok(svc.state.dirtyPaths().includes(MARKER));
  await svc.pushChanged();
  assert.equal(store.peekText(MARKER), "2", "published with version 2");
  const named = (await readIndex(store, retry))?.entries ?? {};
  assert.ok(Object.hasOwn(named, `${OUT}/2/raw`));
});

Deno.test("a version whose files are all kept local by a classifier rule holds no marker: it is pushed", async () => {
  const store = new InMemoryStore();
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-marker-" }),
    store,
    identity: { holder: "w@host", hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: { retry, classifierRules: [{ pattern: `${OUT}/1/**`, class: "internal" }] },
    conditional: new ConditionalWrites(),
  });
  await write(svc, `${OUT}/1/raw`, "one, kept local");
  await write(svc, MARKER, "1");
  const r = await svc.pushChanged();
  assert.deepEqual(r.uploaded, [MARKER]);
});

Deno.test("a marker whose bytes are no version number (a path, empty, two lines, a word) is held, dirty; a number with a newline is pushed", async () => {
  const store = new InMemoryStore();
  const svc = await service(store);
  await write(svc, `${OUT}/1/raw`, "first");
  await write(svc, MARKER, "1\n");
  assert.deepEqual((await svc.pushChanged()).uploaded.sort(), [`${OUT}/1/raw`, MARKER]);
  for (const bad of ["../1", "", "1\n1", "latest", " 1 2"]) {
    await write(svc, MARKER, bad);
    const held = await svc.pushChanged({ only: [MARKER] });
    assert.deepEqual(held.uploaded, [], JSON.stringify(bad));
    assert.deepEqual(held.skipped, [{
      path: MARKER,
      reason: markerNotANumberReason(MARKER, enc.encode(bad)),
      keepDirty: true,
    }]);
    assert.match(held.skipped[0].reason, /no version number/);
    assert.equal(store.peekText(MARKER), "1\n", "readers keep following version 1");
  }
});

Deno.test("without the gate, a marker holding a path is published for readers to follow", async () => {
  const store = new InMemoryStore();
  const svc = await service(store, [MARKER_AFTER_VERSION]);
  await write(svc, `${OUT}/1/raw`, "first");
  await write(svc, MARKER, "1");
  await svc.pushChanged();
  await write(svc, MARKER, "../1");
  await svc.pushChanged({ only: [MARKER] });
  assert.equal(store.peekText(MARKER), "../1");
});

/**
 * Chaos seed 143500042 (I13): a core run crashed with its version's `raw`
 * written and no `metadata.yaml` (held back for good by
 * unfinished-version-holder), then the marker was moved back one, onto that
 * version, while a peer moved it forward. The marker's reason told the user
 * to push the version or the whole cache, which never publishes it: it must
 * name the unfinished version and the way out (a finished version, or
 * `--theirs` while the conflict is open).
 */
Deno.test("a marker naming a version whose writer stopped before its metadata.yaml says so, and the way out it gives publishes", async () => {
  const store = new InMemoryStore();
  const hold = async () =>
    await createSluice({
      cacheDir: await Deno.makeTempDir({ prefix: "sluice-marker-" }),
      store,
      identity: { holder: "w@host", hostname: "host", pid: 1 },
      clock: new FakeClock(),
      config: { retry, unfinishedVersions: "hold" },
      conditional: new ConditionalWrites(),
    });
  const svc = await hold();
  await write(svc, `${OUT}/1/raw`, "line 1\n"); // its writer stopped here
  await write(svc, `${OUT}/2/raw`, "two");
  await write(svc, `${OUT}/2/metadata.yaml`, "version: 2\n");
  await write(svc, MARKER, "2");
  await svc.pushChanged();
  assert.equal(store.peekText(MARKER), "2");
  // A peer moves the marker forward; this cache moves it back one.
  const peer = await hold();
  await peer.pullChanged();
  await write(peer, `${OUT}/3/raw`, "three");
  await write(peer, `${OUT}/3/metadata.yaml`, "version: 3\n");
  await write(peer, MARKER, "3");
  await peer.pushChanged();
  await write(svc, MARKER, "1");
  const whole = await svc.pushChanged();
  const left = whole.skipped.find((s) => s.path === MARKER);
  assert.ok(left, JSON.stringify(whole.skipped));
  assert.match(left.reason, /still being written/);
  assert.doesNotMatch(left.reason, /push the version, or the whole cache/);
  await svc.pullChanged();
  assert.ok(svc.conflicts().some((c) => c.path === MARKER));
  // --mine rebases the marker on theirs and pushes it: left out, dirty, with
  // the way out in its reason (the conflict is settled into that local change).
  const mine = await svc.resolveConflict(MARKER, "mine");
  assert.equal(mine.resolved, false);
  const why = mine.push?.skipped.find((s) => s.path === MARKER)?.reason ?? "";
  assert.equal(why, markerUnfinishedReason(MARKER, `${OUT}/1`));
  assert.match(why, /set the marker to a finished version/);
  assert.equal(store.peekText(MARKER), "3", "readers never pointed at the unfinished version");
  assert.ok(!svc.conflicts().some((c) => c.path === MARKER));
  // The way out it gives: the marker set to a finished version, pushed.
  await write(svc, MARKER, "2");
  const out = await svc.pushChanged();
  assert.ok(out.uploaded.includes(MARKER), JSON.stringify(out));
  assert.equal(store.peekText(MARKER), "2");
  assert.ok(!svc.state.dirtyPaths().includes(MARKER));
});
