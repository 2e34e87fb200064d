import assert from "node:assert/strict";
import {
  assertIndexCurrent,
  clone as serviceClone,
  put as cachePut,
} from "../sync/service/clone_kit.ts";
import { WRITER_METADATA, writerId } from "./own_writes.ts";
import {
  type ConditionalMode,
  FakeClock,
  InMemoryStore,
  mockPushContext,
  mockWriteContext,
  peerPush,
  planEntry,
  spyNext,
  writeAndMark,
} from "../packages/testing/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import {
  PUSH_PHASES,
  type PushContext,
  type SyncConfig,
  WRITE_PHASES,
  type WriteContext,
} from "../sync/context.ts";
import {
  AlreadyExistsError,
  SluiceError,
  UnreachableError,
  VersionConflictError,
} from "../sync/errors.ts";
import type { WarningEvent } from "../sync/events.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { terminalWrite } from "../sync/service/push.ts";
import { createSyncService } from "../sync/service/service.ts";
import {
  CONTENT_HASH_METADATA,
  CREATE_ONLY_WRITER,
  createOnlyWriter,
  createOnlyWriterEntry,
  WRITE_ID_METADATA,
} from "./create_only_writer.ts";
import { endpointFallbackWarnerEntry } from "./endpoint_fallback_warner.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";

const RAW = "data/t/m/d/2/raw";
const META = "data/t/m/d/2/metadata.yaml";
const MODES: ConditionalMode[] = ["honour", "ignore", "refuse"];
const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

// ---- the gate alone -------------------------------------------------------

async function unit(body = "local") {
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  const ctx = mockWriteContext(m.ctx, RAW, body, {
    entry: planEntry(RAW, { class: "data-version" }),
  });
  const next = spyNext(() => terminalWrite(ctx));
  return { m, store, ctx, next };
}

Deno.test("mutable classes keep their mode and get no tags", async () => {
  const m = await mockPushContext();
  for (
    const [path, cls, mode] of [
      ["data/t/m/d/latest", "latest-marker", PutModes.overwrite],
      ["_index/a.json", "index", PutModes.update("v9")],
      ["outputs/o.txt", "other", PutModes.overwrite],
    ] as const
  ) {
    const ctx = mockWriteContext(m.ctx, path, "x", {
      entry: planEntry(path, { class: cls }),
      mode,
    });
    const next = spyNext();
    await createOnlyWriter()(ctx, next);
    assert.equal(next.calls, 1);
    assert.deepEqual(ctx.mode, mode, path);
    assert.deepEqual(ctx.metadata, {});
  }
});

Deno.test("a create refused for an object gone when read back is made once more: the version is free again", async () => {
  const { store, ctx, next } = await unit();
  store.failNext("put", 1, () => new AlreadyExistsError(RAW));
  await createOnlyWriter()(ctx, next);
  assert.equal(ctx.outcome, "written");
  assert.equal(ctx.result?.version, (await store.head(RAW))?.version);
  assert.equal((await store.head(RAW))?.metadata?.[CONTENT_HASH_METADATA], ctx.hash);
});

Deno.test("refused again when made once more (another writer took the version meanwhile): a retryable push error", async () => {
  const { store, ctx, next } = await unit();
  store.failNext("put", 2, () => new AlreadyExistsError(RAW));
  const err = await createOnlyWriter()(ctx, next).catch((e) => e);
  assert.ok(err instanceof SluiceError, String(err));
  assert.equal(err.code, "push_failed");
  assert.equal(err.retryable, true);
  assert.match(err.message, /Nothing was overwritten/);
  assert.equal(store.peek(RAW), undefined);
});

Deno.test("a data version file is written create-only, tagged with a write id and its hash", async () => {
  const { store, ctx, next } = await unit();
  await createOnlyWriter()(ctx, next);
  assert.equal(next.calls, 1);
  assert.deepEqual(store.log.map((r) => [r.op, r.mode]), [["put", "create"]]);
  const info = await store.head(RAW);
  assert.equal(info?.metadata?.[CONTENT_HASH_METADATA], ctx.hash);
  assert.match(info?.metadata?.[WRITE_ID_METADATA] ?? "", /^[0-9a-f]{32}$/);
  assert.equal(ctx.outcome, "written");
});

Deno.test("equal bytes already published: success from the hash tag, without reading the object", async () => {
  const { store, ctx, next } = await unit("same");
  store.seed(RAW, "same", { [CONTENT_HASH_METADATA]: ctx.hash });
  store.resetLog();
  await createOnlyWriter()(ctx, next);
  assert.equal(ctx.outcome, "identical");
  assert.equal(ctx.result?.key, RAW);
  assert.deepEqual(store.log.map((r) => r.op), ["put", "head"]);
});

Deno.test("equal bytes written by a foreign tool (no tag): compared by reading the object", async () => {
  const { store, ctx, next } = await unit("same");
  const seeded = store.seed(RAW, "same");
  store.resetLog();
  await createOnlyWriter()(ctx, next);
  assert.equal(ctx.outcome, "identical");
  assert.equal(ctx.result?.version, seeded.version);
  assert.deepEqual(store.log.map((r) => r.op), ["put", "head", "get"]);
});

Deno.test("different bytes: version_exists naming the key, local version dir set aside and clean", async () => {
  const { m, store, ctx, next } = await unit("mine");
  await m.cache.write(RAW, new TextEncoder().encode("mine"));
  await m.cache.write(META, new TextEncoder().encode("meta"));
  await m.state.markDirty(RAW);
  await m.state.markDirty(META);
  store.seed(RAW, "theirs", { [CONTENT_HASH_METADATA]: "0".repeat(64) });
  const err = await createOnlyWriter()(ctx, next).catch((e) => e);
  assert.ok(err instanceof VersionConflictError);
  assert.equal(err.code, "version_exists");
  assert.equal(err.exitCode, 1);
  assert.deepEqual(err.keys, [RAW]);
  // Another client's object (no writer id) that no index names: said so.
  assert.match(err.message, /written by another client and named by no index yet/);
  assert.match(err.message, /A pull brings it once an index names it/);
  assert.equal(err.unindexed, true);
  assert.equal(err.setAsideTo.length, 2);
  for (const p of err.setAsideTo) assert.match(p, /^\.sluice\/set-aside\//);
  assert.equal(await m.cache.read(RAW), null);
  assert.equal(await m.cache.read(META), null);
  assert.equal(new TextDecoder().decode((await m.cache.read(err.setAsideTo[1]))!), "mine");
  // Recorded as a version clash (what `sluice status` advises on).
  const dir = err.setAsideTo[1].slice(0, -RAW.length);
  const reason = JSON.parse(new TextDecoder().decode((await m.cache.read(`${dir}REASON.json`))!));
  assert.equal(reason.code, "version_exists");
  // Named by no index: another client's upload, not said to be published.
  assert.match(
    JSON.stringify(reason),
    /Another client's upload of data\/t\/m\/d\/2\/raw, with different bytes and named by no index yet/,
  );
  assert.deepEqual(m.state.dirtyPaths(), []);
  assert.equal(store.peekText(RAW), "theirs");
  assert.ok(m.gates.some((g) => g.gate === CREATE_ONLY_WRITER && g.path === RAW));

  // The sibling file of the same version is not written at all.
  const sibling = mockWriteContext(m.ctx, META, "meta", {
    entry: planEntry(META, { class: "data-version" }),
  });
  const siblingNext = spyNext(() => terminalWrite(sibling));
  await assert.rejects(createOnlyWriter()(sibling, siblingNext), VersionConflictError);
  assert.equal(siblingNext.calls, 0);
  assert.equal(store.peek(META), undefined);
});

Deno.test("a version this cache published, changed here since: version_exists says it was uploaded from here", async () => {
  const { m, store, ctx, next } = await unit("edited");
  await m.cache.write(RAW, new TextEncoder().encode("edited"));
  await m.state.markDirty(RAW);
  const published = store.seed(RAW, "published", {
    [CONTENT_HASH_METADATA]: "0".repeat(64),
    [WRITER_METADATA]: await writerId(ctx),
  });
  await m.state.recordSynced(RAW, { hash: "0".repeat(64), version: published.version, size: 9 });
  const err = await createOnlyWriter()(ctx, next).catch((e) => e);
  assert.ok(err instanceof VersionConflictError);
  assert.equal(err.code, "version_exists");
  assert.match(err.message, /was uploaded from this cache before/);
  assert.doesNotMatch(err.message, /another writer/);
  assert.equal(err.setAsideTo.length, 1);
  assert.equal(new TextDecoder().decode((await m.cache.read(err.setAsideTo[0]))!), "edited");
  assert.equal(store.peekText(RAW), "published", "a published version is never rewritten");
  assert.ok(m.gates.some((g) => /uploaded from this cache before/.test(g.message)));
});

// ---- whole pushes over the in-memory store ------------------------------

interface CloneOptions {
  readonly createOnly?: boolean;
  readonly warner?: boolean;
  readonly registry?: ConditionalWrites;
  readonly config?: Partial<SyncConfig>;
  readonly extraWrite?: (write: Pipeline<WriteContext>) => void;
}

async function clone(store: InMemoryStore, name: string, o: CloneOptions = {}) {
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  if (o.createOnly ?? true) write.add(createOnlyWriterEntry());
  if (o.warner ?? true) {
    write.add(endpointFallbackWarnerEntry({ registry: o.registry ?? new ConditionalWrites() }));
  }
  o.extraWrite?.(write);
  const svc = await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: { ...quick, ...o.config },
    push,
    write,
  });
  const warnings: WarningEvent[] = [];
  svc.events.on("warning", (w) => warnings.push(w));
  const put = (path: string, text: string) => writeAndMark(svc, path, text);
  return { svc, warnings, put };
}

function storeIn(mode: ConditionalMode): InMemoryStore {
  const store = new InMemoryStore();
  store.conditionalMode = mode;
  store.seed("data/t/m/d/1/raw", "version 1"); // both clones allocate N+1 = 2
  return store;
}

async function setAsideFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      if (e.isDirectory) await walk(`${d}/${e.name}`);
      else out.push(`${d}/${e.name}`.slice(dir.length + 1));
    }
  };
  await walk(`${dir}/.sluice/set-aside`).catch(() => {});
  return out;
}

for (const mode of MODES) {
  Deno.test(`${mode}: without the gate the second writer of version N+1 overwrites the first`, async () => {
    const store = storeIn(mode);
    const a = await clone(store, "a", { createOnly: false });
    const b = await clone(store, "b", { createOnly: false });
    await a.put(RAW, "from a");
    await b.put(RAW, "from b");
    await a.svc.pushChanged();
    await b.svc.pushChanged();
    assert.equal(store.peekText(RAW), "from b", "the loss: a's acknowledged write is gone");
  });

  Deno.test(`${mode}: with the gate the first writer of version N+1 wins and the second fails`, async () => {
    const store = storeIn(mode);
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    for (const c of [a, b]) {
      await c.put(RAW, `from ${c === a ? "a" : "b"}`);
      await c.put(META, `meta ${c === a ? "a" : "b"}`);
    }
    await a.svc.pushChanged();
    const err = await b.svc.pushChanged().catch((e) => e);
    assert.ok(err instanceof VersionConflictError, String(err));
    assert.equal(err.code, "version_exists");
    assert.deepEqual([...err.keys].sort(), [META, RAW]);
    assert.equal(store.peekText(RAW), "from a");
    assert.equal(store.peekText(META), "meta a");
    const aside = await setAsideFiles(b.svc.cacheDir);
    assert.ok(aside.some((p) => p.endsWith(RAW)), aside.join());
    assert.ok(aside.some((p) => p.endsWith(META)), aside.join());
    assert.deepEqual(b.svc.state.dirtyPaths(), []);
    await b.svc.pushChanged(); // not a loop of failing pushes
    assert.equal(store.peekText(RAW), "from a");
  });

  Deno.test(`${mode}: re-publishing equal bytes succeeds without rewriting the object`, async () => {
    const store = storeIn(mode);
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    await a.put(RAW, "same");
    await b.put(RAW, "same");
    await a.svc.pushChanged();
    const before = (await store.head(RAW))!.version;
    const r = await b.svc.pushChanged();
    assert.deepEqual(r.identical, [RAW]);
    assert.equal((await store.head(RAW))!.version, before);
    assert.deepEqual(b.svc.state.dirtyPaths(), []);

    const bare = await clone(store, "c", { createOnly: false });
    await bare.put(RAW, "same");
    await bare.svc.pushChanged();
    assert.notEqual((await store.head(RAW))!.version, before, "without the gate it is rewritten");
  });

  Deno.test(`${mode}: a retry after a lost response whose first attempt landed succeeds`, async () => {
    const retrying = { retry: { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0 } };
    const lose = (store: InMemoryStore) =>
      store.failNext("put", 1, () => new UnreachableError("response lost"), {
        afterEffect: true,
        match: (k) => k === RAW,
      });
    const store = storeIn(mode);
    const a = await clone(store, "a", { config: retrying });
    await a.put(RAW, "payload");
    lose(store);
    const r = await a.svc.pushChanged();
    assert.deepEqual(r.uploaded, [RAW]);
    assert.equal(store.peekText(RAW), "payload");
    assert.equal(store.log.filter((x) => x.key === RAW && x.op === "get").length, 0);

    if (mode !== "honour") return;
    // A naive create-only gate, without the write id and hash resolution, fails here.
    const naive = await clone(new InMemoryStore(), "n", {
      createOnly: false,
      config: retrying,
      extraWrite: (w) =>
        w.add({
          name: "naive-create",
          phase: "mode",
          middleware: async (ctx, next) => {
            if (ctx.entry.class === "data-version") ctx.mode = PutModes.create;
            await next();
          },
        }),
    });
    await naive.put(RAW, "payload");
    lose(naive.svc.store as InMemoryStore);
    const err = await naive.svc.pushChanged().catch((e) => e);
    assert.equal(err?.code, "already_exists");
  });

  Deno.test(`${mode}: latest markers and index files still overwrite`, async () => {
    const store = storeIn(mode);
    const a = await clone(store, "a");
    const b = await clone(store, "b");
    await a.put("data/t/m/d/latest", "2");
    await a.put(".catalog-export.json", '{"a":1}');
    await a.svc.pushChanged();
    await b.put("data/t/m/d/latest", "3");
    await b.put(".catalog-export.json", '{"b":1}');
    store.resetLog();
    await b.svc.pushChanged();
    assert.equal(store.peekText("data/t/m/d/latest"), "3");
    assert.equal(store.peekText(".catalog-export.json"), '{"b":1}');
    const mutable = store.log.filter((r) =>
      r.key === "data/t/m/d/latest" || r.key === ".catalog-export.json"
    );
    assert.deepEqual(mutable.map((r) => [r.op, r.mode]), [["put", "overwrite"], [
      "put",
      "overwrite",
    ]]);
  });
}

Deno.test("a whole push of a version this cache published, edited since, fails saying it was uploaded from here", async () => {
  const store = new InMemoryStore();
  const { svc, put } = await clone(store, "a");
  await put(RAW, "published");
  await svc.pushChanged();
  await put(RAW, "edited");
  const err = await svc.pushChanged().catch((e) => e);
  assert.ok(err instanceof VersionConflictError);
  assert.equal(err.ownEarlier, true);
  assert.match(err.message, /was uploaded from this cache before/);
  assert.equal(store.peekText(RAW), "published");
});

Deno.test("two writers of one data version: the writer that loses it deletes what it created of it, and the other completes it", async () => {
  const store = new InMemoryStore();
  const a = await serviceClone(store, "a");
  const b = await serviceClone(store, "b");
  const dir = "data/t/m0/out/1";
  // a's raw lands, its metadata does not (an outage), so neither does its index update.
  await cachePut(a, `${dir}/raw`, "a raw");
  await cachePut(a, `${dir}/metadata.yaml`, "a meta");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === `${dir}/metadata.yaml`,
  });
  await assert.rejects(a.pushChanged());
  assert.equal(store.peekText(`${dir}/raw`), "a raw");
  // b writes the same version: its metadata create lands (its commit does not), then its raw meets a's.
  await cachePut(b, `${dir}/metadata.yaml`, "b meta");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await assert.rejects(b.pushChanged());
  assert.equal(store.peekText(`${dir}/metadata.yaml`), "b meta");
  await cachePut(b, `${dir}/raw`, "b raw");
  await assert.rejects(
    b.pushChanged(),
    (e: Error) => (e as { code?: string }).code === "version_exists",
  );
  assert.equal(
    store.peekText(`${dir}/metadata.yaml`),
    undefined,
    "b's own metadata went with its loss",
  );
  // a pushes again: the version is a's, whole.
  await a.pushChanged();
  assert.equal(store.peekText(`${dir}/raw`), "a raw");
  assert.equal(store.peekText(`${dir}/metadata.yaml`), "a meta");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a create made once more while a sibling loses the version leaves no object of this cache's behind", async () => {
  const inner = new InMemoryStore();
  const [raw, meta] = [RAW, META];
  let rawPuts = 0;
  let atSecond!: () => void;
  const reachedSecond = new Promise<void>((r) => atSecond = r);
  let releaseSecond!: () => void;
  const second = new Promise<void>((r) => releaseSecond = r);
  const store = new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "put") return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        if (key === raw && ++rawPuts === 1) throw new AlreadyExistsError(raw); // gone when read back
        if (key === raw && rawPuts === 2) {
          atSecond();
          await second;
        }
        return await value.call(target, key, ...rest);
      };
    },
  }) as InMemoryStore;
  const m = await mockPushContext({ store });
  for (const [path, text] of [[raw, "raw"], [meta, "meta"]]) {
    await m.cache.write(path, new TextEncoder().encode(text));
    await m.state.markDirty(path);
  }
  // Another writer's version 2, published first with other bytes.
  inner.seed(meta, "their meta", { [CONTENT_HASH_METADATA]: "0".repeat(64) });
  const ctxOf = (path: string, text: string) =>
    mockWriteContext(m.ctx, path, text, { entry: planEntry(path, { class: "data-version" }) });
  const rawCtx = ctxOf(raw, "raw");
  const metaCtx = ctxOf(meta, "meta");
  const rawDone = createOnlyWriter()(rawCtx, spyNext(() => terminalWrite(rawCtx))).then(
    () => undefined,
    (e) => e,
  );
  await reachedSecond;
  const metaErr = await createOnlyWriter()(metaCtx, spyNext(() => terminalWrite(metaCtx))).catch(
    (e) => e,
  );
  assert.ok(metaErr instanceof VersionConflictError, String(metaErr));
  releaseSecond();
  assert.ok((await rawDone) instanceof VersionConflictError);
  assert.equal(inner.peek(raw), undefined, "its create of a version it gave up is deleted again");
});

/** The version a run writes next, as swamp core numbers it: the highest directory in the cache plus one. */
async function nextVersion(cacheDir: string, data: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(`${cacheDir}/${data}`)) {
    if (e.isDirectory && /^\d+$/.test(e.name)) n = Math.max(n, Number(e.name));
  }
  return n + 1;
}

Deno.test("an older client's uncommitted versions above a lost one: kept as empty directories, so one run fails, not one per version", async () => {
  const store = new InMemoryStore();
  const data = "data/t/m/state";
  const a = await serviceClone(store, "a");
  await cachePut(a, `${data}/1/raw`, "v1");
  await cachePut(a, `${data}/1/metadata.yaml`, "version: 1");
  await a.pushChanged();
  // An older client's run (no writer id) uploaded versions 2 to 4, then
  // died before its commit: no index names them.
  for (const v of [2, 3, 4]) {
    store.seed(`${data}/${v}/raw`, `old client v${v}`);
    store.seed(`${data}/${v}/metadata.yaml`, `version: ${v}`);
  }
  const runs: string[] = [];
  let first: unknown;
  for (let run = 1; run <= 4; run++) {
    const v = await nextVersion(a.cacheDir, data);
    await cachePut(a, `${data}/${v}/raw`, `a run ${run}`);
    await cachePut(a, `${data}/${v}/metadata.yaml`, `version: ${v}`);
    const err = await a.pushChanged().then(() => undefined, (e) => e);
    runs.push(err === undefined ? `v${v} ok` : `v${v} ${err.code}`);
    first ??= err;
    if (err === undefined) break;
  }
  // Without the kept directories, v2, v3 and v4 each fail a run.
  assert.deepEqual(runs, ["v2 version_exists", "v5 ok"]);
  assert.ok(first instanceof VersionConflictError);
  assert.deepEqual(first.keptAhead, [`${data}/3`, `${data}/4`]);
  assert.match(
    first.message,
    /also holds data\/t\/m\/state\/3, data\/t\/m\/state\/4, named by no index/,
  );
  assert.match(first.message, /next version written here is numbered above them/);
  // The older client's uploads were never touched; the kept directories are empty.
  for (const v of [2, 3, 4]) assert.equal(store.peekText(`${data}/${v}/raw`), `old client v${v}`);
  for (const v of [3, 4]) assert.deepEqual([...Deno.readDirSync(`${a.cacheDir}/${data}/${v}`)], []);
  assert.equal(store.peekText(`${data}/5/raw`), "a run 2");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("an unindexed upload of another client's that holds the version: the gate's note does not call it published", async () => {
  const { m, store, ctx, next } = await unit("mine");
  await m.cache.write(RAW, new TextEncoder().encode("mine"));
  await m.state.markDirty(RAW);
  store.seed(RAW, "theirs"); // no writer id, named by no index
  const err = await createOnlyWriter()(ctx, next).catch((e) => e);
  assert.ok(err instanceof VersionConflictError && err.unindexed);
  const note = m.gates.find((g) => g.gate === CREATE_ONLY_WRITER && g.path === RAW);
  assert.ok(note);
  assert.doesNotMatch(note.message, /published/, note.message);
});

Deno.test("ETag store: a version file the index names with nothing behind it, as this cache's pull saw, is not created over by a run's push with other bytes: the erasure that took it puts it back", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const store = new InMemoryStore({ versionFromBytes: true, clock });
  const now = () => clock.now();
  const data = "data/shell/cmd/m0/log";
  const meta = `${data}/1/metadata.yaml`;
  const theirs = "token: same run\nversion: 1\n";
  // An old client wrote version 1's metadata (a refused run's same bytes:
  // the same ETag) with its entry, under the model lock; the refused run's
  // erasure then deleted it by that version, and is about to read the index
  // again and put it back.
  await peerPush(store, { [meta]: theirs }, { now });
  await store.delete(meta);
  // The next lock holder's pull meets the entry with nothing behind it (left
  // as it is, young), and its run writes its own version 1.
  const b = await serviceClone(store, "b");
  await b.pullChanged();
  await cachePut(b, `${data}/1/raw`, "b's raw");
  await cachePut(b, meta, "token: b's run\nversion: 1\n");
  const err = await b.pushChanged().then(() => undefined, (e) => e);
  assert.equal(store.peekText(meta), undefined, "nothing was created over the entry");
  // The erasure's put-back (the bytes the entry names, only where nothing is) lands.
  await store.put(meta, new TextEncoder().encode(theirs), PutModes.create);
  const entry = (await readIndex(store, quick.retry))?.entries[meta];
  assert.equal(entry?.h, await sha256Hex(new TextEncoder().encode(theirs)));
  assert.ok(err instanceof VersionConflictError, `version_exists, not ${err}`);
  assert.equal(store.peekText(`${data}/1/raw`), undefined, "b left no upload of version 1");
});
