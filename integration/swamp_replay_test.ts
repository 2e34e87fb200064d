/**
 * The swamp tool's call sequence replayed against the Sluice datastore
 * extensions on MinIO (S3 extension) and fake-gcs-server (GCS extension):
 *
 * - the four incidents with every gate on (no loss) and with the matching
 *   gate off (the loss); 001 also through the single-phase flush;
 * - a breakglass between `preparePush` and `commitPush`: the commit is
 *   refused and the prepared upload deleted, so the next holder writes the
 *   same version; with the lock fence off the refused run is committed;
 * - buckets an existing client left in either index version (v1 index
 *   object, v2 shards) pull completely through the extension, and after the
 *   extension's pushes an index reader written to the layout rules sees
 *   every file (and the extension pulls what such a client pushes);
 * - lock objects of an existing client (same key, same body shape, written
 *   with a raw conditional create) hold the extension off, and the
 *   extension's locks make a raw conditional create fail, for model and
 *   global keys.
 */
import assert from "node:assert/strict";
import { peerCommitSeq, peerPush, peerReadIndex, seedPeerBucket } from "../packages/testing/mod.ts";
import {
  breakglass,
  datastoreSync,
  type FlushMode,
  type Host,
  modelLockKey,
  openReplayWorld,
  type ReplayBackend,
  type ReplayWorld,
  runModelMethod,
  structuralCommand,
} from "./swamp_replay.ts";
import { fakeGcsReplayBackend, minioReplayBackend } from "./swamp_replay_backends.ts";
import { assertCode, INCIDENTS, MODEL, outcome, REPLAY_GATES } from "./swamp_replay_incidents.ts";
import { LOCK_FENCE } from "../middleware/lock_fence.ts";
import { sluice } from "../cli/cli_test_kit.ts";

const BACKENDS: readonly ReplayBackend[] = [minioReplayBackend(), fakeGcsReplayBackend()];

/** What an existing client leaves in a bucket. */
const PEER_FILES: Readonly<Record<string, string>> = {
  "data/command/shell/m0/out/1/raw": "seeded raw 1",
  "data/command/shell/m0/out/1/metadata.yaml": "version: 1\n",
  "data/command/shell/m0/out/2/raw": "seeded raw 2",
  "data/command/shell/m0/out/latest": "2",
  "outputs/command/shell/run/def-1.yaml": "out: 1\n",
  "workflow-runs/wf1/workflow-run-r1.yaml": "status: done\n",
  "definitions-evaluated/command/shell/m0.yaml": "name: m0\n",
  "audit/2026-08-01.log": "audit line\n",
  ".catalog-export.json": "[]",
};

function registerFor(backend: ReplayBackend): void {
  // Real SDK clients and lock heartbeats keep timers and sockets alive between calls.
  const common = { ignore: backend.ignore, sanitizeOps: false, sanitizeResources: false };
  const inWorld = (name: string, fn: (w: ReplayWorld) => Promise<void>) =>
    Deno.test({
      ...common,
      name: `${backend.label} replay: ${name}`,
      fn: async () => {
        const w = await openReplayWorld(backend);
        try {
          await fn(w);
        } finally {
          await w.dispose();
        }
      },
    });

  for (const incident of INCIDENTS) {
    const flushes: FlushMode[] = incident.id === "001"
      ? ["two-phase", "single-phase"]
      : ["two-phase"];
    for (const flush of flushes) {
      const how = flush === "two-phase" ? "" : ` (${flush} flush)`;
      inWorld(
        `incident ${incident.id} ${incident.title}${how}`,
        (w) => incident.run(w, true, flush),
      );
      inWorld(
        `incident ${incident.id} with ${
          REPLAY_GATES[incident.id].join(", ")
        } off: the loss happens${how}`,
        (w) => incident.run(w, false, flush),
      );
    }
  }

  for (const on of [true, false]) {
    inWorld(
      on
        ? "a breakglass between preparePush and commitPush: the commit is refused and the prepared upload deleted"
        : "a breakglass between preparePush and commitPush with lock-fence off: the refused run is committed",
      async (w) => {
        const a = await w.host("a", { disable: on ? [] : [LOCK_FENCE] });
        const op = await w.host("op");
        const file = `data/${MODEL.modelType}/${MODEL.modelId}/out/1/raw`;
        const refused = await outcome(
          runModelMethod(a, MODEL, (r) => r.saveVersion("out", "from A"), {
            betweenPrepareAndCommit: async () => {
              assert.equal(await w.remote(file), "from A"); // uploaded, not yet indexed
              assert.equal(await breakglass(op, "command/shell/m1"), true);
            },
          }),
        );
        const index = await peerReadIndex(w.observer.store);
        if (!on) {
          assert.equal(refused, null, String(refused));
          assert.ok(index[file], "the refused run was not committed with the fence off");
          return;
        }
        assertCode(refused, "model_lock_lost");
        assert.equal(await w.remote(file), null, "the prepared upload stayed in the bucket");
        assert.equal(index[file], undefined);
        assert.equal(await a.read(file), null);
        // The next holder writes the same version without meeting the refused upload.
        const b = await w.host("b");
        assert.equal(await runModelMethod(b, MODEL, (r) => r.saveVersion("out", "from B")), 1);
        assert.equal(await w.remote(file), "from B");
      },
    );
  }

  inWorld(
    "a conflict the extension leaves behind is resolved with the command line it names, on the same cache",
    async (w) => {
      const a = await w.host("a");
      const b = await w.host("b");
      const path = "definitions-evaluated/command/shell/m0.yaml";
      const edit = (h: Host, text: string) =>
        structuralCommand(h, async (s) => {
          await s.markDirty({ relPath: path });
          await h.write(path, text);
        });
      assert.equal((await edit(a, "name: m0\n")).pushError, null);
      await datastoreSync(b);
      assert.equal(await b.read(path), "name: m0\n");
      assert.equal((await edit(a, "name: from a\n")).pushError, null);
      // b changes the file too (marked as the tool marks it), then syncs: both versions are kept.
      await b.service().markDirty({ relPath: path });
      await b.write(path, "name: from b\n");
      await datastoreSync(b);
      assert.equal(await b.read(path), "name: from b\n");
      const left = b.warnings.find((x) => x.code === "conflicts_left");
      assert.ok(left, b.warnings.map((x) => x.code).join(","));
      const m = left.message.match(
        /--cache ('(?:[^']|'\\'')*'|\S+) --store ('(?:[^']|'\\'')*'|\S+?)\`/,
      );
      assert.ok(m, left.message);
      const word = (s: string) => s.startsWith("'") ? s.slice(1, -1).replaceAll("'\\''", "'") : s;
      const target = ["--cache", word(m[1]), "--store", word(m[2])];
      const env = { ...w.bucket.cliEnv };
      // Before any command line run on it, the cache recorded its store: the command line takes it unasked, and refuses another.
      const unasked = await sluice(["status", "--cache", target[1]], { env });
      assert.equal(unasked.code, 3, unasked.err + unasked.out);
      const other = target[3].replace("/datastore", "/datastore-typo");
      const refused = await sluice(["pull", "--cache", target[1], "--store", other], { env });
      assert.equal(refused.code, 78, refused.err + refused.out);
      assert.match(refused.err, /mirrors .*datastore[^-]/);
      assert.equal(await b.read(path), "name: from b\n", "nothing changed by the refused pull");
      const status = await sluice(["status", ...target], { env });
      assert.equal(status.code, 3, status.err + status.out);
      assert.match(status.out, new RegExp(path));
      const resolved = await sluice(["resolve", path, "--mine", ...target], { env });
      assert.equal(resolved.code, 0, resolved.err + resolved.out);
      await datastoreSync(a);
      assert.equal(await a.read(path), "name: from b\n");
      // No state of Sluice's where an existing extension on this cache would upload it.
      assert.equal(await Deno.lstat(`${b.cachePath}/.sluice`).then(() => 1, () => 0), 0);
    },
  );

  for (const v2 of [false, true]) {
    const version = v2 ? "v2 (shards)" : "v1 (index object)";
    inWorld(
      `a ${version} bucket of an existing client pulls completely; after the extension's pushes its index reader sees every file`,
      async (w) => {
        await seedPeerBucket(w.observer.store, PEER_FILES, { v2 });
        const seqBefore = await peerCommitSeq(w.observer.store);
        const a = await w.host("a");
        // `datastore sync --pull`: no lock, a new service.
        assert.equal(await a.service().pullChanged(), Object.keys(PEER_FILES).length);
        for (const [path, text] of Object.entries(PEER_FILES)) {
          assert.equal(await a.read(path), text, `${path} did not pull`);
        }
        // A model run (two-phase) and a structural command push through the extension.
        const n = await runModelMethod(a, MODEL, (r) => r.saveVersion("out", "from the extension"));
        await structuralCommand(a, async (svc) => {
          const rel = "workflow-runs/wf2/workflow-run-r2.yaml";
          await svc.markDirty({ relPath: rel });
          await a.write(rel, "status: running\n");
        });
        const pushed: Record<string, string> = {
          [`data/${MODEL.modelType}/${MODEL.modelId}/out/${n}/raw`]: "from the extension",
          [`data/${MODEL.modelType}/${MODEL.modelId}/out/${n}/metadata.yaml`]: `version: ${n}\n`,
          [`data/${MODEL.modelType}/${MODEL.modelId}/out/latest`]: String(n),
          "workflow-runs/wf2/workflow-run-r2.yaml": "status: running\n",
        };
        const index = await peerReadIndex(w.observer.store);
        for (const [path, text] of Object.entries({ ...PEER_FILES, ...pushed })) {
          assert.ok(index[path], `the existing client's reader does not see ${path}`);
          assert.equal(index[path].size, new TextEncoder().encode(text).length, path);
          assert.equal(await w.remote(path), text);
        }
        if (v2) assert.ok((await peerCommitSeq(w.observer.store))! > seqBefore!);
        else assert.equal(await peerCommitSeq(w.observer.store), null);
        // The other direction: what such a client pushes next, the extension pulls.
        await peerPush(w.observer.store, { "outputs/command/shell/run/def-2.yaml": "out: 2\n" });
        const b = await w.host("b");
        await datastoreSync(b);
        assert.equal(await b.read("outputs/command/shell/run/def-2.yaml"), "out: 2\n");
        assert.equal(
          await b.read(`data/${MODEL.modelType}/${MODEL.modelId}/out/latest`),
          String(n),
        );
        assert.ok(a.providerCalls >= 8, `createProvider was called ${a.providerCalls} times`);
      },
    );
  }

  for (const key of [modelLockKey(MODEL), ".datastore.lock"]) {
    inWorld(`lock ${key}: an existing client's lock holds the extension off`, async (w) => {
      const a = await w.host("a");
      const body = {
        holder: "peer@old-client",
        hostname: "old-client",
        pid: 4242,
        acquiredAt: new Date().toISOString(),
        ttlMs: 60_000,
        nonce: crypto.randomUUID(),
      };
      assert.equal(await w.bucket.rawCreate(key, JSON.stringify(body, null, 2)), true);
      const lock = a.provider().createLock(a.datastorePath, {
        lockKey: key,
        maxWaitMs: 400,
        retryIntervalMs: 50,
      });
      await assert.rejects(lock.acquire(), (e: unknown) => {
        assert.equal((e as Error).name, "LockTimeoutError");
        assert.match(String((e as { holder?: string }).holder), /peer@old-client/);
        return true;
      });
      const info = await lock.inspect();
      assert.equal(info?.holder, body.holder);
      assert.equal(info?.nonce, body.nonce);
      // The breakglass through the lock API works on the existing client's lock.
      if (key !== ".datastore.lock") assert.equal(await breakglass(a, "command/shell/m1"), true);
      else assert.equal(await lock.forceRelease(body.nonce), true);
      await lock.acquire();
      await lock.release();
    });

    inWorld(`lock ${key}: the extension's lock makes a raw conditional create fail`, async (w) => {
      const a = await w.host("a");
      const lock = a.provider().createLock(a.datastorePath, { lockKey: key, maxWaitMs: 1_000 });
      await lock.acquire();
      try {
        assert.equal(await w.bucket.rawCreate(key, "{}"), false, "the raw create took the lock");
        const seen = JSON.parse((await w.bucket.rawGet(key)) ?? "null");
        for (const field of ["holder", "hostname", "pid", "acquiredAt", "ttlMs", "nonce"]) {
          assert.ok(field in seen, `the lock body has no ${field}`);
        }
        assert.equal(seen.holder, a.identity.holder);
      } finally {
        await lock.release();
      }
      assert.equal(await w.bucket.rawGet(key), null);
      assert.equal(await w.bucket.rawCreate(key, "{}"), true);
    });
  }

  Deno.test({
    ...common,
    name: `${backend.label} replay: stop the server`,
    fn: () => backend.stop(),
  });
}

for (const backend of BACKENDS) registerFor(backend);
