/**
 * Where a datastore cache keeps Sluice's sync state: never where the tool's
 * existing S3 and GCS extensions, run on the same cache, would upload it.
 * Their push walks the whole cache and uploads every file but the names
 * `isInternalCacheFile` keeps local; bound to a namespace, it takes the
 * files under `<ns>/` only, and unbound it leaves out every root directory
 * holding a `.namespace.json` (contract §4.8).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";
import { isInternalCacheFile } from "./cache_paths.ts";
import { adoptEarlierState } from "./state_dirs.ts";
import { sharedStateDir } from "../../sync/transfer/cache.ts";
import type { SwampSyncService } from "./contract.ts";
import { PrefixedStore } from "./prefixed_store.ts";

const CONFIG = { bucket: "mem", lock: { backend: "store", ttlMs: 30_000 } };

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(rel ? `${dir}/${rel}` : dir)) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) out.push(...await filesUnder(dir, r));
    else out.push(r);
  }
  return out.sort();
}

/** The files an existing extension's push walk of `cache` would upload (bound to `ns`, or unbound). */
async function oldClientUploads(cache: string, ns: string): Promise<string[]> {
  const nsDirs = new Set<string>();
  for await (const e of Deno.readDir(cache)) {
    if (!e.isDirectory || e.name === ns) continue;
    if (await Deno.stat(`${cache}/${e.name}/.namespace.json`).then(() => true, () => false)) {
      nsDirs.add(e.name);
    }
  }
  return (await filesUnder(cache)).filter((rel) =>
    !isInternalCacheFile(rel) && (ns ? rel.startsWith(`${ns}/`) : !nsDirs.has(rel.split("/")[0]))
  );
}

/** Two clones of one datastore (the same config), each with its own cache. */
function clones(ns: string) {
  const store = new InMemoryStore();
  const clone = async (name: string) => {
    const ds = defineStoreDatastore({
      store,
      createService: createSluice,
      env: envFrom({}),
      identity: { holder: `${name}@host-${name}`, hostname: `host-${name}`, pid: 1 },
    });
    const cache = await Deno.makeTempDir({ prefix: `sluice-ext-state-${name}-` });
    const svc = ds.createProvider(CONFIG).createSyncService(`/repo/${name}`, cache);
    return { cache, svc, ds };
  };
  const at = (rel: string) => ns ? `${ns}/${rel}` : rel;
  const options = ns ? { namespace: ns } : {};
  return { store, clone, at, options };
}

async function write(svc: SwampSyncService, cache: string, rel: string, text: string) {
  const file = `${cache}/${rel}`;
  await svc.markDirty({ relPath: rel });
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
}

for (const ns of ["", "prod"]) {
  Deno.test(`extension state${ns ? ", namespaced" : ""}: after pushes, pulls and a conflict with a copy set aside, an existing extension's walk of the cache would upload the user's files only`, async () => {
    const t = clones(ns);
    const a = await t.clone("a");
    const b = await t.clone("b");
    for (const c of [a, b]) {
      if (ns) {
        await Deno.mkdir(`${c.cache}/${ns}`, { recursive: true });
        await Deno.writeTextFile(`${c.cache}/${ns}/.namespace.json`, "{}");
      }
    }
    await write(a.svc, a.cache, t.at("files/notes.txt"), "first");
    assert.equal(await a.svc.pushChanged(t.options), 1);
    assert.ok((await b.svc.pullChanged(t.options)) >= 1);
    // Both change the same file; a publishes first, and b's pull finds its copy in conflict.
    await write(a.svc, a.cache, t.at("files/notes.txt"), "a's");
    await write(b.svc, b.cache, t.at("files/notes.txt"), "b's");
    assert.equal(await a.svc.pushChanged(t.options), 1);
    await b.svc.pullChanged(t.options).catch(() => {});
    // A cache never synced with a copy of its own: the pull sets it aside before taking theirs.
    const c = await t.clone("c");
    await Deno.mkdir(`${c.cache}/${t.at("files")}`, { recursive: true });
    if (ns) await Deno.writeTextFile(`${c.cache}/${ns}/.namespace.json`, "{}");
    await Deno.writeTextFile(`${c.cache}/${t.at("files/notes.txt")}`, "c's own");
    await c.svc.pullChanged(t.options);

    for (const x of [a, b, c]) {
      assert.deepEqual(await oldClientUploads(x.cache, ns), [t.at("files/notes.txt")]);
      // Nothing of Sluice's state is where releases before kept it.
      assert.equal(await Deno.lstat(`${x.cache}/${t.at(".sluice")}`).then(() => 1, () => 0), 0);
    }
    // What it kept is in the extension's state directory: b's conflict, c's copy set aside.
    assert.ok((await filesUnder(sharedStateDir(b.cache, ns))).includes("conflicts.json"));
    const kept = await filesUnder(sharedStateDir(c.cache, ns));
    assert.ok(kept.some((f) => f.startsWith("set-aside/")), kept.join("\n"));
  });
}

Deno.test("extension state: a cache synced before keeps its state, moved once to where the existing extensions never upload it", async () => {
  for (const ns of ["", "prod"]) {
    const t = clones(ns);
    const a = await t.clone("a");
    const root = ns ? `${a.cache}/${ns}` : a.cache;
    await Deno.mkdir(root, { recursive: true });
    if (ns) await Deno.writeTextFile(`${root}/.namespace.json`, "{}");
    // A release before kept the state in the sync root: a pending mark there.
    const earlier = await createSluice({
      cacheDir: root,
      store: ns ? prefixed(t.store, ns) : t.store,
    });
    await Deno.mkdir(`${root}/files`, { recursive: true });
    await Deno.writeTextFile(`${root}/files/pending.txt`, "marked before the move");
    await earlier.markDirty({ relPaths: ["files/pending.txt"] });
    assert.ok(await Deno.stat(`${root}/.sluice`).then(() => true, () => false));

    // The extension's first sync moves it and publishes the pending mark.
    assert.equal(await a.svc.pushChanged(t.options), 1, ns);
    assert.equal(t.store.peekText(t.at("files/pending.txt")), "marked before the move");
    assert.equal(await Deno.lstat(`${root}/.sluice`).then(() => 1, () => 0), 0, ns);
    assert.ok((await filesUnder(sharedStateDir(a.cache, ns))).length > 0);
    assert.deepEqual(await oldClientUploads(a.cache, ns), [t.at("files/pending.txt")]);
  }
});

/** The store under `ns/`, as the extension's namespaced services see it. */
function prefixed(store: InMemoryStore, ns: string) {
  return new PrefixedStore(store, ns);
}

Deno.test("adoptEarlierState: a state directory already there is never merged nor replaced; the earlier one is left as it is", async () => {
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-state-both-" });
  await Deno.mkdir(`${cache}/.sluice`);
  await Deno.writeTextFile(`${cache}/.sluice/conflicts.json`, "earlier");
  const dir = sharedStateDir(cache, "");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/conflicts.json`, "current");
  assert.equal(await adoptEarlierState(cache, dir), "both");
  assert.equal(await Deno.readTextFile(`${cache}/.sluice/conflicts.json`), "earlier");
  assert.equal(await Deno.readTextFile(`${dir}/conflicts.json`), "current");
  await Deno.remove(dir, { recursive: true });
  assert.equal(await adoptEarlierState(cache, dir), "moved");
  assert.equal(await Deno.readTextFile(`${dir}/conflicts.json`), "earlier");
  assert.equal(await adoptEarlierState(cache, dir), "none");
});

Deno.test("extension state: an earlier state beside the current one is reported (earlier_state_kept), never read", async () => {
  const store = new InMemoryStore();
  const warnings: { code: string; message: string }[] = [];
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: "a@host-a", hostname: "host-a", pid: 1 },
    warn: (line: string) =>
      warnings.push({ code: line.match(/earlier_state_kept/)?.[0] ?? "", message: line }),
  });
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-state-warn-" });
  await Deno.mkdir(`${cache}/.sluice`);
  await Deno.mkdir(sharedStateDir(cache, ""), { recursive: true });
  const svc = ds.createProvider(CONFIG).createSyncService("/repo/a", cache);
  await svc.pullChanged({});
  const w = warnings.find((x) => x.code === "earlier_state_kept");
  assert.ok(w, warnings.map((x) => x.message).join("\n"));
  assert.match(w.message, /rm -r/);
  assert.ok(await Deno.stat(`${cache}/.sluice`).then(() => true, () => false));
});

Deno.test("adoptEarlierState: two openings of one cache at once both find the state moved, neither fails", async () => {
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-state-race-" });
  await Deno.mkdir(`${cache}/.sluice`);
  await Deno.writeTextFile(`${cache}/.sluice/dirty.log`, "notes/a.md\n");
  const dir = sharedStateDir(cache, "");
  const got = await Promise.all([adoptEarlierState(cache, dir), adoptEarlierState(cache, dir)]);
  assert.deepEqual(got, ["moved", "moved"]);
  assert.equal(await Deno.readTextFile(`${dir}/dirty.log`), "notes/a.md\n");
});

Deno.test("adoptEarlierState: an earlier .sluice that is a file or a link is refused, never taken for no state", async () => {
  for (const kind of ["file", "link"]) {
    const cache = await Deno.makeTempDir({ prefix: "sluice-ext-state-odd-" });
    if (kind === "file") await Deno.writeTextFile(`${cache}/.sluice`, "x");
    else await Deno.symlink(await Deno.makeTempDir(), `${cache}/.sluice`);
    await assert.rejects(
      () => adoptEarlierState(cache, sharedStateDir(cache, "")),
      (e: Error & { code?: string }) => e.code === "cache_unwritable" && /mv /.test(e.message),
    );
  }
});

Deno.test("adoptEarlierState: the advice for an earlier .sluice that is a file moves it out of the cache, never beside the state inside it, where the next push would publish it", async () => {
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-state-aside-" });
  await Deno.writeTextFile(`${cache}/.sluice`, "x");
  const e = await adoptEarlierState(cache, sharedStateDir(cache, "")).then(
    () => assert.fail("refused"),
    (e: Error) => e,
  );
  assert.match(e.message, /mv /);
  assert.ok(e.message.includes(`${cache}.sluice-moved`), e.message);
  assert.ok(!e.message.includes(`${cache}/.sluice.moved`), e.message);
});

Deno.test("extension state: a _control that is a link out of the cache is refused (unsafe_path); nothing is written through it", async () => {
  const store = new InMemoryStore();
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    identity: { holder: "a@host-a", hostname: "host-a", pid: 1 },
  });
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-state-link-" });
  const outside = await Deno.makeTempDir({ prefix: "sluice-ext-state-outside-" });
  await Deno.symlink(outside, `${cache}/_control`);
  const svc = ds.createProvider(CONFIG).createSyncService("/repo/a", cache);
  await assert.rejects(
    () => svc.pullChanged({}),
    (e: Error & { code?: string }) => e.code === "unsafe_path",
  );
  assert.deepEqual(await filesUnder(outside), []);
});

for (const ns of ["", "prod"]) {
  Deno.test(`extension state${ns ? ", namespaced" : ""}: the warning of a copy a pull set aside names where it is`, async () => {
    const t = clones(ns);
    const a = await t.clone("a");
    if (ns) {
      await Deno.mkdir(`${a.cache}/${ns}`, { recursive: true });
      await Deno.writeTextFile(`${a.cache}/${ns}/.namespace.json`, "{}");
    }
    await write(a.svc, a.cache, t.at("files/notes.txt"), "a's");
    assert.equal(await a.svc.pushChanged(t.options), 1);
    const lines: string[] = [];
    const ds = defineStoreDatastore({
      store: t.store,
      createService: createSluice,
      env: envFrom({}),
      identity: { holder: "c@host-c", hostname: "host-c", pid: 1 },
      warn: (line: string) => lines.push(line),
    });
    const cache = await Deno.makeTempDir({ prefix: "sluice-ext-state-warned-" });
    await Deno.mkdir(`${cache}/${t.at("files")}`, { recursive: true });
    if (ns) await Deno.writeTextFile(`${cache}/${ns}/.namespace.json`, "{}");
    await Deno.writeTextFile(`${cache}/${t.at("files/notes.txt")}`, "c's own");
    const svc = ds.createProvider(CONFIG).createSyncService("/repo/c", cache);
    await svc.pullChanged(t.options);
    const line = lines.find((l) => l.includes("local_set_aside"));
    assert.ok(line, lines.join("\n"));
    const at = line.match(/set aside in (\S+) \(see/)?.[1] ?? "";
    const file = at.startsWith("/") ? at : `${cache}/${at}`;
    assert.ok(file.startsWith(`${sharedStateDir(cache, ns)}/set-aside/`), line);
    assert.equal(await Deno.readTextFile(file), "c's own");
  });
}
