import assert from "node:assert/strict";
import { classifyPath, pathClassifier } from "./path_classifier.ts";
import {
  FakeClock,
  InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
  writeAndMark,
} from "../packages/testing/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import { peerPush } from "../packages/testing/layout_peer.ts";
import { createSluice } from "../sluice.ts";
import type { ClassifierRule } from "../sync/context.ts";

/** A cache of `store` with the gates, under `holder`, and any extra classifier rules. */
async function classified(store: InMemoryStore, holder: string, rules?: ClassifierRule[]) {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-classify-" }),
    store,
    clock: new FakeClock(),
    identity: { holder, hostname: "host", pid: 1 },
    conditional: new ConditionalWrites(),
    ...(rules ? { config: { classifierRules: rules } } : {}),
  });
}

Deno.test("default rules give each known shape its class", () => {
  const cases: [string, string][] = [
    ["data/aws/ec2/m1/state/3/raw", "data-version"],
    ["data/t/m/d/12/metadata.yaml", "data-version"],
    ["data/a/b/c/m/d/1/raw", "data-version"],
    ["data/t/m/d/latest", "latest-marker"],
    ["data/t/m/d/x/raw", "other"],
    [".datastore-index.json", "internal"],
    ["_index/by-type/aws.json", "internal"],
    ["_index/_meta.json", "internal"],
    [".datastore-sync-state.json", "internal"],
    ["_control/heartbeats/h1", "internal"],
    ["data/t/m/_meta.json", "index"],
    [".catalog-export.json", "index"],
    ["config/upstream_extensions.json", "managed-lockfile"],
    ["config/vaults/v1.yaml", "config"],
    [".sluice/manifest.json", "internal"],
    ["data/t/m/.lock", "internal"],
    [".datastore.lock", "internal"],
    [".locks/prod.lock", "internal"],
    ["x/.0b6f2c1e-8d4a-4e0b-9a51-3c7d2f9e8a10.tmp", "internal"],
    ["data/t/m/d/1/raw.sluice-9f86d08101.tmp", "internal"],
    ["files/app/raw.sluice-0123456789ab.tmp", "internal"],
    ["x/y.tmp", "other"],
    ["logs/report.20241231.tmp", "other"],
    ["files/build.deadbeef1.tmp", "other"],
    ["notes/.draft.tmp", "other"],
    ["files/app/yarn.lock", "other"],
    ["Cargo.lock", "other"],
    ["prod/files/app/poetry.lock", "other"],
    [".namespace.json", "internal"],
    ["_catalog.db-wal", "internal"],
    ["workflow-runs/r1.json", "other"],
    ["outputs/o.txt", "other"],
  ];
  for (const [p, c] of cases) assert.equal(classifyPath(p), c, p);
});

Deno.test("a namespace prefix is stripped", () => {
  assert.equal(classifyPath("prod/data/t/m/d/3/raw"), "data-version");
  assert.equal(classifyPath("prod/config/upstream_extensions.json"), "managed-lockfile");
  assert.equal(classifyPath("prod/data/t/m/d/latest"), "latest-marker");
  assert.equal(classifyPath("prod/notes.txt"), "other");
});

Deno.test("the layout's own objects under a namespace or another datastore's prefix are internal, never pushed", () => {
  for (
    const p of [
      "prod/_index/_meta.json",
      "team/_index/_root.json",
      "team/.datastore-index.json",
      "team/_control/heartbeats/h1",
      "config/_index/_meta.json",
    ]
  ) assert.equal(classifyPath(p), "internal", p);
  assert.equal(classifyPath("prod/data/t/m/_meta.json"), "index", "a _meta.json outside _index/");
  assert.equal(classifyPath("notes/deep/_index/_meta.json"), "other");
});

Deno.test("extra rules win over the defaults", () => {
  const rules = [{ pattern: "reports/**/*.json", class: "index" as const }, {
    pattern: "config/local.yaml",
    class: "internal" as const,
  }];
  assert.equal(classifyPath("reports/a/b/c.json", rules), "index");
  assert.equal(classifyPath("reports/c.json", rules), "index");
  assert.equal(classifyPath("config/local.yaml", rules), "internal");
  assert.equal(classifyPath("config/other.yaml", rules), "config");
});

Deno.test("the gate classifies every entry, skips internal ones and moves markers to commit", async () => {
  const m = await mockPushContext({
    plan: [
      planEntry("data/t/m/d/1/raw"),
      planEntry("data/t/m/d/latest"),
      planEntry(".datastore.lock"),
      planEntry("logs/a.log"),
    ],
  });
  const next = spyNext();
  await pathClassifier()(m.ctx, next);
  assert.equal(next.calls, 1);
  const [v, latest, lock, log] = m.ctx.plan;
  assert.equal(v.class, "data-version");
  assert.equal(latest.class, "latest-marker");
  assert.equal(latest.commit, true);
  assert.equal(lock.action, "skip");
  assert.equal(log.class, "other");
  assert.ok(m.ctx.plan.every((e) => e.handledBy.includes("path-classifier")));
  assert.equal(m.gates.length, 1);
});

Deno.test("a user's file named like a lock or a temp file is pushed, as other clients of the layout push it", async () => {
  const store = new InMemoryStore();
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-classify-" }),
    store,
    clock: new FakeClock(),
    identity: { holder: "a@host", hostname: "host", pid: 1 },
    conditional: new ConditionalWrites(),
  });
  await writeAndMark(svc, "files/app/yarn.lock", "lockfile v1");
  await writeAndMark(svc, "notes.tmp", "scratch notes");
  const r = await svc.pushChanged();
  assert.deepEqual([...r.uploaded].sort(), ["files/app/yarn.lock", "notes.tmp"]);
  assert.equal(store.peekText("files/app/yarn.lock"), "lockfile v1");
  assert.equal(store.peekText("notes.tmp"), "scratch notes");
});

Deno.test("the pull brings what the push takes, and leaves out what it leaves out: a file named like a temp file is synced both ways, a temp file of Sluice's neither", async () => {
  const store = new InMemoryStore();
  const clone = (holder: string) => classified(store, holder);
  const a = await clone("a@host");
  await writeAndMark(a, "logs/report.20241231.tmp", "report v1");
  await writeAndMark(a, "notes/.draft.tmp", "draft v1");
  const first = await a.pushChanged();
  assert.deepEqual([...first.uploaded].sort(), ["logs/report.20241231.tmp", "notes/.draft.tmp"]);
  // Another client of the layout names a file with Sluice's temp name in the index.
  await peerPush(store, { "notes/raw.sluice-0123456789ab.tmp": "a leftover" });
  const b = await clone("b@host");
  await b.pullChanged();
  assert.equal(
    await Deno.stat(`${b.cacheDir}/notes/raw.sluice-0123456789ab.tmp`).then(
      () => true,
      () => false,
    ),
    false,
  );
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/logs/report.20241231.tmp`), "report v1");
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/notes/.draft.tmp`), "draft v1");
  await writeAndMark(b, "logs/report.20241231.tmp", "report v2");
  assert.deepEqual((await b.pushChanged()).uploaded, ["logs/report.20241231.tmp"]);
  assert.equal(store.peekText("logs/report.20241231.tmp"), "report v2");
});

Deno.test("a cache at the bucket's root, over another datastore's prefix: the pull brings none of that prefix's index objects, and a push of one is left out, never written over theirs", async () => {
  const store = new InMemoryStore();
  // Another datastore under `team/` (no namespace manifest): its index objects.
  store.seed("team/.datastore-index.json", '{"entries":{}}');
  store.seed("team/_index/_meta.json", '{"version":2,"partitions":["_root"],"commitSeq":7}');
  store.seed("team/_index/_root.json", '{"version":1,"entries":{}}');
  store.seed("notes/a.txt", "a file of this datastore's");
  const root = await classified(store, "a@host");
  const pulled = await root.pullChanged();
  assert.deepEqual(pulled.fetched, ["notes/a.txt"]);
  await writeAndMark(root, "team/_index/_meta.json", "{}");
  const pushed = await root.pushChanged();
  assert.deepEqual(pushed.uploaded, []);
  assert.equal(
    store.peekText("team/_index/_meta.json"),
    '{"version":2,"partitions":["_root"],"commitSeq":7}',
  );
});

Deno.test("the pull leaves out what the push classes internal, extra rules included: a rule that makes a path under <seg>/_index/ a file of the datastore's has it pushed and pulled alike", async () => {
  const store = new InMemoryStore();
  const rules = [{ pattern: "docs/**", class: "other" as const }];
  const clone = (holder: string) => classified(store, holder, rules);
  const a = await clone("a@host");
  await writeAndMark(a, "docs/_index/page.md", "a page");
  assert.deepEqual((await a.pushChanged()).uploaded, ["docs/_index/page.md"]);
  const b = await clone("b@host");
  assert.deepEqual((await b.pullChanged()).fetched, ["docs/_index/page.md"]);
  // Without the rule, the same path is the layout's own: neither pushed nor pulled.
  const plain = await classified(store, "c@host");
  assert.deepEqual((await plain.pullChanged()).fetched, []);
});
