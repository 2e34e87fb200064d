import assert from "node:assert/strict";
import { createSluice } from "../sluice.ts";
import { FakeClock, InMemoryStore, peerPush } from "../packages/testing/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import type { SyncService } from "../sync/service/service.ts";
import { VERSION_UNDER_MARKER } from "./version_under_marker.ts";
import { UnreachableError } from "../sync/errors.ts";
import { MONOLITH_KEY } from "../sync/transfer/bucket_layout.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";

const D = "data/shell/cmd/m1/out";
const enc = new TextEncoder();
const RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

async function service(
  store: InMemoryStore,
  disable?: string[],
  as = { holder: "w@host", pid: 1, prefix: "sluice-under-marker-" },
): Promise<SyncService> {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: as.prefix }),
    store,
    identity: { holder: as.holder, hostname: "host", pid: as.pid },
    clock: new FakeClock(),
    config: { retry: RETRY },
    conditional: new ConditionalWrites(),
    ...(disable ? { disable } : {}),
  });
}

/**
 * `a` publishes version 9 with the marker naming it. Then an old client
 * reads the index, `a` publishes version 10 (`files` of it) and moves the
 * marker, `then` runs, and the old client writes back what it read:
 * version 10's entries are dropped.
 */
async function droppedByOldClient(
  store: InMemoryStore,
  a: SyncService,
  files: string[],
  then?: () => Promise<void>,
) {
  await a.cache.write(`${D}/9/raw`, enc.encode("version 9"));
  await a.cache.write(`${D}/latest`, enc.encode("9"));
  await a.markDirty({ relPath: D });
  await a.pushChanged();
  await peerPush(store, { "files/theirs.txt": "theirs\n" }, {
    afterRead: async () => {
      for (const f of files) {
        await a.cache.write(
          `${D}/10/${f}`,
          enc.encode(f === "raw" ? "version 10" : "version: 10\n"),
        );
      }
      await a.cache.write(`${D}/latest`, enc.encode("10"));
      await a.markDirty({ relPath: D });
      await a.pushChanged();
      await then?.();
    },
  });
}

/** Versions 9 and 10 published, the marker naming 10; then version 10's directory removed here. */
async function deletedHere(disable?: string[]) {
  const store = new InMemoryStore();
  const svc = await service(store, disable);
  for (const n of ["9", "10"]) {
    await svc.cache.write(`${D}/${n}/raw`, enc.encode(`version ${n}`));
    await svc.cache.write(`${D}/${n}/metadata.yaml`, enc.encode(`version: ${n}\n`));
  }
  await svc.cache.write(`${D}/latest`, enc.encode("10"));
  await svc.markDirty({ relPath: D });
  await svc.pushChanged();
  await Deno.remove(`${svc.cacheDir}/${D}/10`, { recursive: true });
  return { store, svc };
}

Deno.test("a push deleting the version the latest marker names leaves the deletion out, dirty, with the reason", async () => {
  const { store, svc } = await deletedHere();
  const r = await svc.pushChanged({ only: [`${D}/10`] });
  assert.deepEqual(r.deleted, []);
  const kept = r.skipped.filter((s) => s.path.startsWith(`${D}/10/`));
  assert.equal(kept.length, 2);
  assert.ok(
    kept.every((s) =>
      s.keepDirty && /the latest marker .*latest names this version \(10\)/.test(s.reason) &&
      s.reason.includes(`\`sluice push ${D}/10 ${D}/latest\``)
    ),
    kept.map((s) => s.reason).join("\n"),
  );
  assert.equal(
    store.peekText(`${D}/10/raw`),
    "version 10",
    "a reader following the marker finds its files",
  );
  assert.equal(store.peekText(`${D}/latest`), "10");
});

Deno.test("without the gate, the same push leaves the marker naming deleted files (the loss it prevents)", async () => {
  const { store, svc } = await deletedHere([VERSION_UNDER_MARKER]);
  const r = await svc.pushChanged({ only: [`${D}/10`] });
  assert.equal(r.deleted.length, 2);
  assert.equal(store.peekText(`${D}/latest`), "10");
  assert.equal(store.peekText(`${D}/10/raw`), undefined, "the marker names a version that is gone");
});

Deno.test("with the marker set to another version here, the version is deleted and the marker published", async () => {
  const { store, svc } = await deletedHere();
  await svc.cache.write(`${D}/latest`, enc.encode("9"));
  const r = await svc.pushChanged({ only: [`${D}/10`, `${D}/latest`] });
  assert.equal(r.deleted.length, 2);
  assert.equal(store.peekText(`${D}/10/raw`), undefined);
  assert.equal(store.peekText(`${D}/latest`), "9");
});

Deno.test("a withdrawal of this cache's own committed version (its answer lost), cut off after its entries went and before one delete, is finished by the next push though the marker here names it", async () => {
  const store = new InMemoryStore();
  const svc = await service(store);
  await svc.cache.write(`${D}/10/raw`, enc.encode("version 10"));
  await svc.cache.write(`${D}/10/metadata.yaml`, enc.encode("version: 10\n"));
  await svc.cache.write(`${D}/latest`, enc.encode("10"));
  await svc.markDirty({ relPath: D });
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect: true,
    match: (k) => k === MONOLITH_KEY,
  });
  await assert.rejects(svc.pushChanged());
  assert.equal(store.peekText(`${D}/10/raw`), "version 10", "committed, its answer lost");
  // The version deleted here, the marker left naming it: the push takes
  // back this cache's own uploads (their entries first, then the objects),
  // and is cut off at the delete of metadata.yaml.
  await Deno.remove(`${svc.cacheDir}/${D}/10`, { recursive: true });
  await svc.markDirty({ relPath: `${D}/10` });
  store.failNext("delete", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === `${D}/10/metadata.yaml`,
  });
  await svc.pushChanged({ only: [`${D}/10`] }).catch(() => undefined);
  const named = async () => (await readIndex(store, RETRY))?.entries ?? {};
  assert.ok(!Object.hasOwn(await named(), `${D}/10/metadata.yaml`), "its entry went first");
  assert.equal(store.peekText(`${D}/10/metadata.yaml`), "version: 10\n", "its object stands");
  // No index names it: the deletion left to finish takes nothing from a
  // reader the marker points at, and an upload left so blocks every peer's
  // write of the path (waiting for an uncommitted upload).
  await svc.pushChanged({ only: [`${D}/10`] });
  assert.equal(
    store.peekText(`${D}/10/metadata.yaml`),
    undefined,
    "the next push left this cache's unnamed upload on the datastore",
  );
  assert.equal(store.peekText(`${D}/10/raw`), undefined);
  assert.ok(!Object.hasOwn(await named(), `${D}/10/raw`));
});

Deno.test("a peer's committed version whose entries an old client dropped is not deleted while the marker here names it", async () => {
  const store = new InMemoryStore();
  const a = await service(store);
  const bSvc = await service(store, undefined, {
    holder: "b@host",
    pid: 2,
    prefix: "sluice-under-marker-b-",
  });
  // An old client reads the index, `a` publishes version 10 and moves the
  // marker, `b` pulls both, then the old client writes back what it read:
  // version 10's entries are dropped (its writer's next pull names them
  // again while the store holds them).
  await droppedByOldClient(store, a, ["raw", "metadata.yaml"], async () => {
    await bSvc.pullChanged();
  });
  const named = (await readIndex(store, RETRY))?.entries ?? {};
  assert.ok(!Object.hasOwn(named, `${D}/10/raw`), "the old client dropped the entry");
  assert.equal(await Deno.readTextFile(`${bSvc.cacheDir}/${D}/latest`), "10");
  // `b` deletes version 10 here, its marker still naming it, and pushes it.
  await Deno.remove(`${bSvc.cacheDir}/${D}/10`, { recursive: true });
  const r = await bSvc.pushChanged({ only: [`${D}/10`] });
  assert.deepEqual(r.deleted, []);
  assert.equal(
    store.peekText(`${D}/10/raw`),
    "version 10",
    "a peer's committed version the marker names was deleted",
  );
  // Its writer's next pull names it again.
  await a.pullChanged();
  await a.pushChanged();
  assert.ok(Object.hasOwn((await readIndex(store, RETRY))?.entries ?? {}, `${D}/10/raw`));
});

Deno.test("this cache's own committed version whose entries an old client dropped is not deleted while the marker here names it", async () => {
  const store = new InMemoryStore();
  const a = await service(store);
  await droppedByOldClient(store, a, ["raw"]);
  assert.ok(!Object.hasOwn((await readIndex(store, RETRY))?.entries ?? {}, `${D}/10/raw`));
  await Deno.remove(`${a.cacheDir}/${D}/10`, { recursive: true });
  const r = await a.pushChanged({ only: [`${D}/10`] });
  assert.deepEqual(r.deleted, []);
  assert.equal(store.peekText(`${D}/10/raw`), "version 10", "a committed version the marker names");
});

Deno.test("a held deletion of a committed version whose entries an old client dropped names the version again", async () => {
  const store = new InMemoryStore();
  const a = await service(store);
  await droppedByOldClient(store, a, ["raw", "metadata.yaml"]);
  const dropped = (await readIndex(store, RETRY))?.entries ?? {};
  assert.ok(!Object.hasOwn(dropped, `${D}/10/raw`), "the old client dropped the entry");
  await Deno.remove(`${a.cacheDir}/${D}/10`, { recursive: true });
  await a.markDirty({ relPath: `${D}/10` });
  // A pull meets the deletion marked here and the entry dropped; the push
  // holds the deletion under the marker and names the version again.
  await a.pullChanged();
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted, []);
  const named = (await readIndex(store, RETRY))?.entries ?? {};
  for (const f of ["raw", "metadata.yaml"]) {
    const p = `${D}/10/${f}`;
    assert.ok(Object.hasOwn(named, p), `${p}: a version the marker names is named again`);
    assert.equal(named[p].v, (await store.head(p))?.version);
  }
  assert.ok(r.skipped.some((s) => s.path === `${D}/10/raw` && s.keepDirty), "still held here");
  // Named again, it stays so: the next push holds the deletion as before.
  const again = await a.pushChanged();
  assert.deepEqual(again.deleted, []);
  assert.ok(Object.hasOwn((await readIndex(store, RETRY))?.entries ?? {}, `${D}/10/raw`));
});
