/**
 * Namespace registration as the tool drives it: `registerNamespace` writes
 * `<ns>/.namespace.json` create-only (the same repo refreshes it by
 * compare-and-swap, another repo is refused), `listNamespaces` lists the
 * manifests, and once the tool has written its local copy of the manifest an
 * unbound sync service marks and hydrates in the namespace.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { hookedStore } from "../testing/hooked_store.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { PrefixedStore } from "./prefixed_store.ts";
import type { ExtensionProvider } from "./provider.ts";
import { watchedDatastore, writeAsTool } from "./checkout_kit.ts";

const CONFIG = { bucket: "mem", lock: { backend: "store", ttlMs: 30_000 } };
const DS_PATH = "/repo/.swamp";

/** The provider, its namespace calls as the tool sees them: optional members. */
type Provider = ExtensionProvider & {
  registerNamespace?(datastorePath: string, namespace: string, repoId: string): Promise<void>;
  listNamespaces?(datastorePath: string): Promise<string[]>;
};

function datastore(
  store: ObjectStore,
  options: { clock?: FakeClock; name?: string; conditionalWrites?: string } = {},
) {
  const { ds, warnings } = watchedDatastore(store, {
    createService: createSluice,
    name: options.name,
    clock: options.clock,
    conditional: new ConditionalWrites(),
  });
  const config = options.conditionalWrites
    ? { ...CONFIG, conditionalWrites: options.conditionalWrites }
    : CONFIG;
  // The tool calls createProvider again at each site: so do these tests.
  return { provider: (): Provider => ds.createProvider(config), warnings };
}

/** What the tool writes into the cache once registration succeeded (its own format). */
async function writeLocalManifest(cache: string, ns: string, repoId: string) {
  await Deno.mkdir(`${cache}/${ns}`, { recursive: true });
  const manifest = { namespace: ns, repoId, registeredAt: new Date().toISOString() };
  await Deno.writeTextFile(
    `${cache}/${ns}/.namespace.json`,
    JSON.stringify(manifest, null, 2) + "\n",
  );
}

/**
 * `namespace set` as the tool runs it against a datastore extension: the
 * provider registers, then the tool writes its local copy. Without
 * `registerNamespace` it only warns and writes nothing into the cache.
 */
async function namespaceSet(
  provider: Provider,
  cache: string,
  ns: string,
  repoId: string,
): Promise<boolean> {
  if (!provider.registerNamespace) return false;
  await provider.registerNamespace(DS_PATH, ns, repoId);
  await writeLocalManifest(cache, ns, repoId);
  return true;
}

const manifestBody = (ns: string, repoId: string, at: number) =>
  JSON.stringify({ namespace: ns, repoId, registeredAt: new Date(at).toISOString() }, null, 2);

async function register(p: Provider, ns: string, repoId: string) {
  assert.equal(typeof p.registerNamespace, "function", "the provider registers namespaces");
  return await p.registerNamespace!(DS_PATH, ns, repoId);
}

async function list(p: Provider): Promise<string[]> {
  assert.equal(typeof p.listNamespaces, "function", "the provider lists namespaces");
  return await p.listNamespaces!(DS_PATH);
}

Deno.test("registerNamespace: writes <ns>/.namespace.json create-only, pretty-printed, at the injected clock's time", async () => {
  const clock = new FakeClock(Date.UTC(2026, 2, 3, 4, 5, 6));
  const store = new InMemoryStore({ clock });
  await register(datastore(store, { clock }).provider(), "prod", "repo-a");
  assert.equal(store.peekText("prod/.namespace.json"), manifestBody("prod", "repo-a", clock.now()));
  const puts = store.log.filter((r) => r.op === "put" && r.key === "prod/.namespace.json");
  assert.deepEqual(puts.map((r) => [r.mode, r.outcome]), [["create", "ok"]]);
  assert.deepEqual(store.keys("").filter((k) => !k.startsWith("_control/.sluice/")), [
    "prod/.namespace.json",
  ]);
});

Deno.test("registerNamespace: the key is under the store's prefix, as every key of the datastore", async () => {
  const root = new InMemoryStore();
  await register(datastore(new PrefixedStore(root, "team/ds")).provider(), "prod", "repo-a");
  assert.deepEqual(root.keys("").filter((k) => k.includes("namespace")), [
    "team/ds/prod/.namespace.json",
  ]);
  assert.match(root.peekText("team/ds/prod/.namespace.json")!, /"repoId": "repo-a"/);
});

Deno.test("registerNamespace: the same repoId again rewrites it with a fresh registeredAt by compare-and-swap", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const { provider } = datastore(store, { clock });
  await register(provider(), "prod", "repo-a");
  await clock.advance(60_000);
  await register(provider(), "prod", "repo-a");
  assert.equal(store.peekText("prod/.namespace.json"), manifestBody("prod", "repo-a", clock.now()));
  const puts = store.log.filter((r) => r.op === "put" && r.key === "prod/.namespace.json");
  assert.deepEqual(puts.map((r) => [r.mode, r.outcome]), [
    ["create", "ok"],
    ["create", "error"],
    ["update", "ok"],
  ]);
});

Deno.test("registerNamespace: another repoId is refused (namespace_taken, naming the holder); the manifest is kept", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  await register(datastore(store, { clock }).provider(), "prod", "repo-aaa");
  const before = store.peekText("prod/.namespace.json");
  await clock.advance(1_000);
  await assert.rejects(
    () => register(datastore(store, { clock, name: "b" }).provider(), "prod", "repo-bbb"),
    (e) => {
      assert.ok(e instanceof SluiceError);
      assert.equal(e.code, "namespace_taken");
      assert.equal(e.exitCode, 1);
      assert.match(e.message, /already registered by repo repo-aaa/);
      assert.match(e.message, /repo-bbb/);
      assert.match(e.message, /was kept/);
      assert.match(e.message, /swamp datastore namespace set/);
      return true;
    },
  );
  assert.equal(store.peekText("prod/.namespace.json"), before);
});

Deno.test("registerNamespace: a manifest that is not one is refused and kept", async () => {
  for (const body of ["not json", "[]", '{"namespace":"prod"}', '{"repoId":7}']) {
    const store = new InMemoryStore();
    store.seed("prod/.namespace.json", body);
    await assert.rejects(
      () => register(datastore(store).provider(), "prod", "repo-a"),
      (e) =>
        e instanceof SluiceError && e.code === "namespace_taken" &&
        /not a namespace manifest/.test(e.message) && /was kept/.test(e.message),
      body,
    );
    assert.equal(store.peekText("prod/.namespace.json"), body);
  }
});

Deno.test("registerNamespace: a slug that is not one is invalid_config, and nothing is written", async () => {
  const store = new InMemoryStore();
  const p = datastore(store).provider();
  const bad = ["", "Prod", "-a", "a-", "a/b", "..", "a_b", "a.b", " a", "a\0", "a".repeat(65)];
  for (const ns of bad) {
    await assert.rejects(
      () => register(p, ns, "repo-a"),
      (e) =>
        e instanceof SluiceError && e.code === "invalid_config" &&
        e.message.includes(JSON.stringify(ns)) && /Nothing was written/.test(e.message) &&
        /swamp datastore namespace set/.test(e.message),
      JSON.stringify(ns),
    );
  }
  await assert.rejects(() => register(p, "prod", ""), /repository id/);
  assert.deepEqual(store.keys(""), []);
  for (const ns of ["a", "0", "prod-1", "a".repeat(64)]) await register(p, ns, "repo-a");
  assert.deepEqual(await list(p), ["0", "a", "a".repeat(64), "prod-1"]);
});

Deno.test("registerNamespace: two concurrent registrations of one slug by different repos: exactly one wins", async () => {
  // Both writes are held until both have reached the store, then go on together;
  // also where the endpoint ignores conditional writes and Sluice checks, then writes.
  for (const mode of ["honour", "ignore"] as const) {
    for (const conditionalWrites of ["auto", "off"]) {
      const inner = new InMemoryStore();
      inner.conditionalMode = mode;
      let arrived = 0;
      let go!: () => void;
      const both = new Promise<void>((r) => go = r);
      const store = hookedStore(inner, {
        before: async (key) => {
          if (!key.endsWith(".namespace.json") || arrived >= 2) return;
          if (++arrived === 2) go();
          await both;
        },
      });
      const results = await Promise.allSettled([
        register(datastore(store, { name: "a", conditionalWrites }).provider(), "prod", "repo-a"),
        register(datastore(store, { name: "b", conditionalWrites }).provider(), "prod", "repo-b"),
      ]);
      const label = `${mode}/${conditionalWrites}`;
      assert.equal(arrived, 2, label);
      const won = results.flatMap((r, i) =>
        r.status === "fulfilled" ? [["repo-a", "repo-b"][i]] : []
      );
      assert.equal(won.length, 1, `${label}: ${JSON.stringify(results)}`);
      const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      assert.ok(lost.reason instanceof SluiceError, label);
      assert.equal(lost.reason.code, "namespace_taken", label);
      assert.match(lost.reason.message, new RegExp(`already registered by repo ${won[0]}`));
      const kept = JSON.parse(inner.peekText("prod/.namespace.json")!);
      assert.equal(kept.repoId, won[0], label);
    }
  }
});

Deno.test("registerNamespace: concurrent re-registrations by one repo all succeed", async () => {
  const store = new InMemoryStore();
  const { provider } = datastore(store);
  await register(provider(), "prod", "repo-a");
  await Promise.all([1, 2, 3].map(() => register(provider(), "prod", "repo-a")));
  assert.equal(JSON.parse(store.peekText("prod/.namespace.json")!).repoId, "repo-a");
});

Deno.test("listNamespaces: [] when none; else the sorted slugs of <ns>/.namespace.json, one level deep, across pages", async () => {
  const store = new InMemoryStore({ pageSize: 2 });
  const p = datastore(store).provider();
  assert.deepEqual(await list(p), []);
  for (
    const key of [
      "data/t/m/d/1/raw",
      "prod/data/t/m/d/1/raw",
      "prod/.datastore-index.json",
      ".namespace.json", // no slug before it
      "a/b/.namespace.json", // two levels deep
      "Bad_NS/.namespace.json", // not a slug
      "prod/x.namespace.json",
      ".locks/prod.lock",
    ]
  ) store.seed(key, "{}");
  assert.deepEqual(await list(p), []);
  store.seed("zeta/.namespace.json", "{}");
  store.seed("dev/.namespace.json", "{}");
  await register(p, "prod", "repo-a");
  assert.deepEqual(await list(p), ["dev", "prod", "zeta"]);
  assert.ok(store.log.filter((r) => r.op === "list").length > 2, "read page by page");
});

Deno.test("listNamespaces: only the manifests under the store's prefix", async () => {
  const root = new InMemoryStore();
  root.seed("other/.namespace.json", "{}");
  root.seed("team/other/.namespace.json", "{}");
  const p = datastore(new PrefixedStore(root, "team/ds")).provider();
  assert.deepEqual(await list(p), []);
  await register(p, "prod", "repo-a");
  assert.deepEqual(await list(p), ["prod"]);
});

async function write(cache: string, rel: string, text: string) {
  await writeAsTool(cache, rel, text);
}

/** Runs `fn` with fresh cache directories, removed afterwards. */
async function withCaches(fn: (a: string, b: string) => Promise<void>) {
  const a = await Deno.makeTempDir({ prefix: "sluice-ext-ns-a-" });
  const b = await Deno.makeTempDir({ prefix: "sluice-ext-ns-b-" });
  try {
    await fn(a, b);
  } finally {
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  }
}

Deno.test("namespace set, then an unbound service marks in the namespace; the manifest is never pushed", async () => {
  await withCaches(async (cache) => {
    const store = new InMemoryStore();
    const a = datastore(store);
    // Checked last: what follows shows what goes wrong without it.
    const set = await namespaceSet(a.provider(), cache, "prod", "repo-a");
    const registered = store.peekText("prod/.namespace.json");

    // A first sync of the namespace, so that later pushes walk only what is marked.
    const first = a.provider().createSyncService("/repo/a", cache);
    await first.markDirty({ relPath: "prod/data/t/m/d/1" });
    await write(cache, "prod/data/t/m/d/1/raw", "one");
    assert.equal(await first.pushChanged({ namespace: "prod" }), 2); // raw and metadata.yaml

    // The next command's service: not bound before its push.
    const svc = a.provider().createSyncService("/repo/a", cache);
    await svc.markDirty({ relPath: "prod/data/t/m/d/2" });
    await write(cache, "prod/data/t/m/d/2/raw", "two");
    await write(cache, "prod/data/t/m/d/3/raw", "unmarked");
    assert.equal(await svc.pushChanged({ namespace: "prod" }), 2);
    assert.equal(store.peekText("prod/data/t/m/d/2/raw"), "two");
    assert.equal(store.peekText("prod/data/t/m/d/3/raw"), undefined);
    assert.equal(store.peekText("data/t/m/d/2/raw"), undefined);

    // A bulk mark walks the namespace: still not the local manifest.
    const bulk = a.provider().createSyncService("/repo/a", cache);
    await bulk.markDirty();
    assert.equal(await bulk.pushChanged({ namespace: "prod" }), 2); // d/3, raw and metadata.yaml
    assert.equal(store.peekText("prod/.namespace.json"), registered);
    assert.deepEqual(store.keys("").filter((k) => k.endsWith(".namespace.json")), [
      "prod/.namespace.json",
    ]);
    assert.deepEqual(a.warnings, []);
    assert.equal(set, true);
    assert.ok(registered);
  });
});

Deno.test("namespace set, then an unbound service of another cache hydrates from the namespace; the manifest is never pulled", async () => {
  await withCaches(async (cacheA, cacheB) => {
    const store = new InMemoryStore();
    const a = datastore(store, { name: "a" });
    const setA = await namespaceSet(a.provider(), cacheA, "prod", "repo-a");
    const svcA = a.provider().createSyncService("/repo/a", cacheA);
    await svcA.pullChanged({ namespace: "prod" }); // bound from here on
    await svcA.markDirty({ relPath: "prod/data/t/m/d/1" });
    await svcA.markDirty({ relPath: "prod/data/t/m/d/2" });
    await write(cacheA, "prod/data/t/m/d/1/raw", "one");
    await write(cacheA, "prod/data/t/m/d/2/raw", "two");
    assert.equal(await svcA.pushChanged({ namespace: "prod" }), 4); // each raw and metadata.yaml

    // Another clone of the repository, in another process and cache.
    const b = datastore(store, { name: "b" });
    const setB = await namespaceSet(b.provider(), cacheB, "prod", "repo-a");
    const localB = await Deno.readTextFile(`${cacheB}/prod/.namespace.json`).catch(() => null);
    const svcB = b.provider().createSyncService("/repo/b", cacheB);
    assert.equal(await svcB.hydrateFile!("prod/data/t/m/d/2/raw"), true);
    assert.equal(await Deno.readTextFile(`${cacheB}/prod/data/t/m/d/2/raw`), "two");
    assert.equal(await Deno.stat(`${cacheB}/data`).then(() => true, () => false), false);
    assert.equal(await svcB.pullChanged({ namespace: "prod" }), 3); // d/1 whole, d/2's metadata.yaml
    assert.equal(await Deno.readTextFile(`${cacheB}/prod/.namespace.json`), localB);
    assert.deepEqual([a.warnings, b.warnings], [[], []]);
    assert.deepEqual([setA, setB], [true, true]);
  });
});

Deno.test("a sync naming a namespace that is no slug is refused before any request, as its registration is", async () => {
  for (const ns of ["Bad Slug", "team-a/data"]) {
    const store = new InMemoryStore();
    const { ds } = watchedDatastore(store, { createService: createSluice });
    const cache = await Deno.makeTempDir({ prefix: "sluice-ext-ns-" });
    try {
      const svc = ds.createProvider({ bucket: "mem" }).createSyncService("/repo", cache);
      for (
        const call of [
          () => svc.pullChanged({ namespace: ns }),
          () => svc.pushChanged({ namespace: ns }),
        ]
      ) {
        const err = await call().then(() => undefined, (e) => e);
        assert.ok(err instanceof SluiceError && err.code === "invalid_config", `${ns}: ${err}`);
        assert.match(err.message, /is not a valid namespace/);
      }
      assert.equal(store.count(), 0, `${ns}: no request was sent`);
    } finally {
      await Deno.remove(cache, { recursive: true });
    }
  }
});
