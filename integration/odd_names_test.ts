/**
 * Unusual file names and shapes end to end against MinIO and
 * fake-gcs-server: one clone pushes, another pulls, and every file comes back
 * at the same cache path with the same bytes (names with spaces, `+`, `%`,
 * `#`, `?`, NFC and NFD forms of one name, long names, empty files).
 */
import assert from "node:assert/strict";
import { type ScenarioBackend, worldTest } from "./scenario_world.ts";
import { fakeGcsScenarioBackend, minioScenarioBackend } from "./scenario_backends.ts";
import { sharedServer, stopSharedServers } from "./servers/common.ts";
import { startMinio } from "./servers/minio.ts";
import { startFakeGcs } from "./servers/fake_gcs.ts";

const minio = sharedServer(() => startMinio());
const gcs = sharedServer(() => startFakeGcs());

const NFC = "caf\u00e9";
const NFD = "cafe\u0301";
const ODD: Record<string, string> = {
  "notes/with space.txt": "space",
  "notes/a+b.txt": "plus",
  "notes/100%.txt": "percent",
  "notes/%2F%41.txt": "encoded-looking",
  "notes/hash#tag.txt": "hash",
  "notes/what?.txt": "question",
  "notes/amp&eq=.txt": "amp",
  [`notes/${NFC}.txt`]: "nfc",
  [`notes/${NFD}.txt`]: "nfd",
  "notes/日本語/ファイル.txt": "cjk",
  "notes/emoji 🎉.txt": "emoji",
  [`notes/${"x".repeat(200)}.txt`]: "long segment",
  [`notes/${"d".repeat(80)}/${"e".repeat(80)}/${"f".repeat(80)}/${"g".repeat(80)}.txt`]: "deep",
  "notes/trailing.": "trailing dot",
  "notes/..hidden": "dotdot prefix",
  "notes/empty": "",
  "notes/sp ace/ in dir /x": "spaces in dirs",
};

function oddNames(label: string, backend: ScenarioBackend) {
  worldTest(
    label,
    backend,
    `odd names and empty files round-trip push → pull byte-identical`,
    async (w) => {
      const a = await w.clone("a");
      const b = await w.clone("b");
      for (const [p, t] of Object.entries(ODD)) await a.write(p, t);
      const pushed = await a.service.pushChanged();
      assert.deepEqual(pushed.skipped, []);
      assert.deepEqual(pushed.localOnly, []);
      assert.equal(pushed.uploaded.length, Object.keys(ODD).length);
      for (const [p, t] of Object.entries(ODD)) {
        assert.equal(await w.remote(p), t, `remote ${p}`);
      }
      const pulled = await b.service.pullChanged();
      assert.equal(pulled.conflicts.length, 0);
      for (const [p, t] of Object.entries(ODD)) {
        assert.equal(await b.readLocal(p), t, `pulled ${p}`);
      }
      // Edit each in b (the empty one becomes non-empty, one becomes empty), push, pull in a.
      for (const [p, t] of Object.entries(ODD)) await b.write(p, t === "" ? "now full" : `${t}!`);
      await b.write("notes/a+b.txt", "");
      const second = await b.service.pushChanged();
      assert.deepEqual(second.skipped, []);
      await a.service.pullChanged();
      for (const [p, t] of Object.entries(ODD)) {
        const want = p === "notes/a+b.txt" ? "" : t === "" ? "now full" : `${t}!`;
        assert.equal(await a.readLocal(p), want, `pulled again ${p}`);
      }
      // Nothing else landed in either cache (no key came back under another name).
      const list = async (dir: string) => {
        const out: string[] = [];
        const walk = async (d: string, rel: string) => {
          for await (const e of Deno.readDir(d)) {
            if (e.name === ".sluice" && rel === "") continue;
            const r = rel ? `${rel}/${e.name}` : e.name;
            if (e.isDirectory) await walk(`${d}/${e.name}`, r);
            else out.push(r);
          }
        };
        await walk(dir, "");
        return out.filter((p) => p.startsWith("notes/")).sort();
      };
      assert.deepEqual(await list(a.service.cacheDir), Object.keys(ODD).sort());
      assert.deepEqual(await list(b.service.cacheDir), Object.keys(ODD).sort());
    },
  );
}

oddNames("MinIO", minioScenarioBackend(minio.get));
oddNames("fake-gcs-server", fakeGcsScenarioBackend(gcs.get));

stopSharedServers("stop the shared servers (odd names)", minio, gcs);
