/**
 * A data version whose files another Sluice writer uploaded and no index
 * names yet (a run refused for its lost lock, whose erasure deletes them; a
 * commit on its way) is not lost to it: the push holds the version back
 * whole, dirty, and publishes it once that upload is gone, or meets it
 * published (`version_exists`).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put, read } from "./clone_kit.ts";
import { PutModes } from "../ports.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import type { WarningEvent } from "../events.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { ADOPT_TOO_SOON, ADOPT_VERSION_AFTER_MS } from "../../middleware/version_adoption.ts";

const DIR = "data/shell/cmd/m1/out/1";
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

/** `b` wrote version 1 (raw, metadata.yaml, latest) where another writer's upload of raw, uncommitted, stands. */
async function inTheWay() {
  const store = new InMemoryStore();
  const other = await store.put(
    `${DIR}/raw`,
    new TextEncoder().encode("a's refused run"),
    PutModes.create,
    {
      metadata: { [WRITER_METADATA]: "a-writer" },
    },
  );
  const b = await clone(store, "b");
  await put(b, `${DIR}/raw`, "b's run");
  await put(b, `${DIR}/metadata.yaml`, "version: 1\n");
  await put(b, "data/shell/cmd/m1/out/latest", "1");
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  return { store, b, other, warnings };
}

Deno.test("a data version another writer's uncommitted upload is in the way of waits, whole and dirty; published once that upload is gone", async () => {
  const { store, b, warnings } = await inTheWay();
  const r = await b.pushChanged();
  assert.deepEqual(r.conflicts, []);
  assert.deepEqual(r.uploaded, [], "nothing of the version, nor its marker");
  assert.equal(r.bytes, 0, "nor any of its bytes counted as pushed");
  assert.equal(store.peekText(`${DIR}/metadata.yaml`), undefined, "no sibling left behind");
  const named = (await readIndex(store, retry))?.entries ?? {};
  assert.deepEqual(Object.keys(named), [], "no reader is pointed at the version");
  assert.ok(warnings.some((w) => w.code === "push_waiting_uncommitted"));
  assert.deepEqual(b.state.dirtyPaths().sort(), [
    `${DIR}/metadata.yaml`,
    `${DIR}/raw`,
    "data/shell/cmd/m1/out/latest",
  ], "every file of it stays dirty");
  assert.equal(await read(b, `${DIR}/raw`), "b's run", "kept here");
  // The refused run's erasure deletes its upload: the next push publishes b's.
  await store.delete(`${DIR}/raw`);
  await b.pushChanged();
  const now = (await readIndex(store, retry))?.entries ?? {};
  assert.deepEqual(Object.keys(now).sort(), [
    `${DIR}/metadata.yaml`,
    `${DIR}/raw`,
    "data/shell/cmd/m1/out/latest",
  ]);
  assert.deepEqual(b.state.dirtyPaths(), []);
  assert.equal(store.peekText(`${DIR}/raw`), "b's run");
});

Deno.test("once that upload is committed, the version is the other writer's: version_exists, b's copy set aside", async () => {
  const { store, b, other } = await inTheWay();
  await b.pushChanged();
  const h = "0".repeat(64);
  await updateIndex(
    store,
    { set: { [`${DIR}/raw`]: { v: other.version, h, s: 15 } }, remove: [] },
    retry,
  );
  const err = await b.pushChanged().catch((e) => e);
  assert.equal(err.code, "version_exists");
  assert.equal(store.peekText(`${DIR}/raw`), "a's refused run");
});

Deno.test("the latest marker naming a version held back is not written over the one it replaces, though the plan had it due", async () => {
  const store = new InMemoryStore();
  const MARKER = "data/shell/cmd/m1/out/latest";
  const V2 = "data/shell/cmd/m1/out/2";
  const b = await clone(store, "b");
  await put(b, `${DIR}/raw`, "b's first run");
  await put(b, MARKER, "1");
  await b.pushChanged();
  await store.put(`${V2}/raw`, new TextEncoder().encode("a's refused run"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "a-writer" },
  });
  await put(b, `${V2}/raw`, "b's second run");
  await put(b, `${V2}/metadata.yaml`, "version: 2\n");
  await put(b, MARKER, "2");
  await b.pushChanged();
  assert.equal(store.peekText(MARKER), "1", "the marker still names the published version");
  assert.ok(b.state.dirtyPaths().includes(MARKER), "kept dirty, with its version");
  const named = (await readIndex(store, retry))?.entries ?? {};
  assert.equal(store.peekText(`${V2}/metadata.yaml`), undefined);
  assert.ok(!Object.hasOwn(named, `${V2}/raw`));
});

Deno.test("status after a push that waited lists the version's files and its marker as left behind, saying why", async () => {
  const { b } = await inTheWay();
  await b.pushChanged();
  const { leftBehind } = await b.statusReport();
  const left = leftBehind.left.map((l) => l.path).sort();
  assert.deepEqual(left, [
    `${DIR}/metadata.yaml`,
    `${DIR}/raw`,
    "data/shell/cmd/m1/out/latest",
  ]);
  assert.ok(leftBehind.left.every((l) => l.reason.includes("the last push waited here")));
});

/** That writer's upload, made long enough ago (by b's clock) to be taken as never committed. */
function aged(store: InMemoryStore, b: { clock: { now(): number } }): void {
  store.touch(`${DIR}/raw`, b.clock.now() - ADOPT_VERSION_AFTER_MS);
}

Deno.test("--adopt-uncommitted on a waiting version: the gone writer's upload is removed (only that version of it) and this cache's published", async () => {
  const { store, b, other, warnings } = await inTheWay();
  await b.pushChanged();
  aged(store, b);
  const r = await b.pushChanged({ adoptUncommitted: [`${DIR}/raw`] });
  assert.deepEqual(r.conflicts, []);
  assert.equal(store.peekText(`${DIR}/raw`), "b's run");
  assert.notEqual((await store.head(`${DIR}/raw`))?.version, other.version);
  const named = (await readIndex(store, retry))?.entries ?? {};
  assert.deepEqual(Object.keys(named).sort(), [
    `${DIR}/metadata.yaml`,
    `${DIR}/raw`,
    "data/shell/cmd/m1/out/latest",
  ]);
  assert.deepEqual(b.state.dirtyPaths(), []);
  const adopted = warnings.filter((w) => w.code === "adopted_uncommitted");
  assert.deepEqual(adopted.map((w) => w.path), [`${DIR}/raw`]);
  assert.match(adopted[0].message, /removed/);
  const { leftBehind } = await b.statusReport();
  assert.deepEqual(leftBehind.left, [], "nothing is said to wait any more");
});

Deno.test("--adopt-uncommitted replaces only the upload it met: a newer one of the gone writer's is waited on again", async () => {
  const { store, b, other } = await inTheWay();
  aged(store, b);
  // Between b's look and its replacement, that writer's object was replaced (another upload of it).
  let swapped = false;
  const put = store.put.bind(store);
  store.put = async (key, body, mode, o) => {
    if (
      !swapped && key === `${DIR}/raw` && mode.kind === "update" && mode.version === other.version
    ) {
      swapped = true;
      await store.delete(key);
      await put(key, new TextEncoder().encode("a's again"), PutModes.create, {
        metadata: { [WRITER_METADATA]: "a-writer" },
      });
    }
    return await put(key, body, mode, o);
  };
  const r = await b.pushChanged({ adoptUncommitted: [`${DIR}/raw`] });
  assert.ok(swapped);
  assert.equal(store.peekText(`${DIR}/raw`), "a's again", "not replaced: not the upload b met");
  assert.deepEqual(r.uploaded, []);
  assert.ok(b.state.dirtyPaths().includes(`${DIR}/raw`), "b's stays dirty, waiting");
});

Deno.test("--adopt-uncommitted of a recent upload is refused (its commit may still come): nothing replaced, the version still waits", async () => {
  const { store, b, warnings } = await inTheWay();
  const r = await b.pushChanged({ adoptUncommitted: [`${DIR}/raw`] });
  assert.equal(store.peekText(`${DIR}/raw`), "a's refused run", "not replaced");
  assert.deepEqual(r.uploaded, []);
  assert.ok(warnings.some((w) => w.code === ADOPT_TOO_SOON && w.path === `${DIR}/raw`));
  assert.ok(!warnings.some((w) => w.code === "adopted_uncommitted"));
  assert.ok(b.state.dirtyPaths().includes(`${DIR}/raw`), "still waiting, dirty");
});

Deno.test("an upload the index names through another client's entry (no object version) is published, not waited on: version_exists", async () => {
  const { store, b, other } = await inTheWay();
  const h = "0".repeat(64);
  // Another client rewrote the index: its entry records the bytes, no Sluice version.
  await updateIndex(
    store,
    { set: { [`${DIR}/raw`]: { v: `~${h}`, h, s: 15 } }, remove: [] },
    retry,
  );
  const err = await b.pushChanged().catch((e) => e);
  assert.equal(err.code, "version_exists");
  assert.equal((await store.head(`${DIR}/raw`))?.version, other.version, "theirs kept");
});

/** Both files of version 1 uploaded by a gone writer, b's own version 1 written here. */
async function bothInTheWay() {
  const store = new InMemoryStore();
  const meta = { metadata: { [WRITER_METADATA]: "a-writer" } };
  const enc = (s: string) => new TextEncoder().encode(s);
  await store.put(`${DIR}/raw`, enc("a's refused run"), PutModes.create, meta);
  await store.put(`${DIR}/metadata.yaml`, enc("version: 1 (a)\n"), PutModes.create, meta);
  const b = await clone(store, "b");
  await put(b, `${DIR}/raw`, "b's run");
  await put(b, `${DIR}/metadata.yaml`, "version: 1\n");
  let waited!: () => void;
  const waitSaid = new Promise<void>((r) => waited = r);
  b.events.on("warning", (w) => {
    if (w.code === "push_waiting_uncommitted") waited();
  });
  return { store, b, waitSaid };
}

/** No object of b's is left in the store that no index names. */
async function noneUnnamed(store: InMemoryStore): Promise<void> {
  const named = (await readIndex(store, retry))?.entries ?? {};
  for (const f of ["raw", "metadata.yaml"]) {
    const head = await store.head(`${DIR}/${f}`);
    if (head?.metadata?.[WRITER_METADATA] === "a-writer") continue;
    assert.ok(!head || Object.hasOwn(named, `${DIR}/${f}`), `b's ${f} stands, named by no index`);
  }
}

Deno.test("an adoption that lands after a sibling's wait began is taken back: no object of this cache's is left unnamed", async () => {
  const { store, b, waitSaid } = await bothInTheWay();
  for (const f of ["raw", "metadata.yaml"]) {
    store.touch(`${DIR}/${f}`, b.clock.now() - ADOPT_VERSION_AFTER_MS);
  }
  let replacing!: () => void;
  const started = new Promise<void>((r) => replacing = r);
  const orig = store.put.bind(store);
  store.put = async (key, body, mode, o) => {
    // metadata.yaml (not adopted) meets a's upload only once raw's replacement began,
    // and that replacement lands only after metadata.yaml's wait was said.
    if (key === `${DIR}/metadata.yaml` && mode.kind === "create") await started;
    if (key === `${DIR}/raw` && mode.kind === "update") {
      replacing();
      await waitSaid;
    }
    return await orig(key, body, mode, o);
  };
  await b.pushChanged({ adoptUncommitted: [`${DIR}/raw`] });
  await noneUnnamed(store);
  assert.ok(b.state.dirtyPaths().includes(`${DIR}/raw`), "b's copy stays dirty");
});

Deno.test("a sibling created again after the object it met vanished, while the version waits, is taken back", async () => {
  const { store, b, waitSaid } = await bothInTheWay();
  let creates = 0;
  const orig = store.put.bind(store);
  store.put = async (key, body, mode, o) => {
    if (key === `${DIR}/metadata.yaml` && mode.kind === "create" && ++creates === 1) {
      try {
        return await orig(key, body, mode, o);
      } finally {
        // That writer's erasure takes its metadata.yaml (not yet its raw).
        await store.delete(key);
      }
    }
    // The second create lands after raw's wait looked at the siblings.
    if (key === `${DIR}/metadata.yaml` && mode.kind === "create") await waitSaid;
    return await orig(key, body, mode, o);
  };
  await b.pushChanged().catch(() => {});
  await noneUnnamed(store);
  assert.ok(b.state.dirtyPaths().includes(`${DIR}/metadata.yaml`), "b's copy stays dirty");
});

Deno.test("an adoption is judged for the whole version: a file of it that writer uploaded recently keeps every file of it", async () => {
  const { store, b } = await bothInTheWay();
  const before = {
    raw: (await store.head(`${DIR}/raw`))!.version,
    meta: (await store.head(`${DIR}/metadata.yaml`))!.version,
  };
  // Its metadata.yaml is old, its raw recent: that writer may still be at work.
  store.touch(`${DIR}/metadata.yaml`, b.clock.now() - ADOPT_VERSION_AFTER_MS);
  const warnings: string[] = [];
  b.events.on("warning", (w) => void warnings.push(w.code));
  await b.pushChanged({ adoptUncommitted: [`${DIR}/raw`, `${DIR}/metadata.yaml`] });
  assert.equal((await store.head(`${DIR}/raw`))?.version, before.raw);
  assert.equal((await store.head(`${DIR}/metadata.yaml`))?.version, before.meta, "not replaced");
  assert.ok(warnings.includes(ADOPT_TOO_SOON));
  assert.ok(!warnings.includes("adopted_uncommitted"));
});
