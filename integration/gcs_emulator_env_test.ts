/**
 * STORAGE_EMULATOR_HOST in the environment (as fake-gcs-server's own docs
 * suggest setting it) must not move the requests of a store whose endpoint
 * is configured: the GCS SDK takes that variable, verbatim, as the base of
 * its JSON API requests over the `apiEndpoint` it is given, while Sluice's
 * own media requests follow `apiEndpoint`. Run as a separate process, since
 * the SDK reads the variable from the process environment.
 */
import assert from "node:assert/strict";
import { runCliEnv as cli } from "./cli_process.ts";
import { makeTempDir, missingBinaryError, removeTempDir } from "./servers/common.ts";
import { fakeGcsBinary, ignoreFakeGcs, startFakeGcs } from "./servers/fake_gcs.ts";

Deno.test({
  name: "GCS: the configured endpoint is used whatever STORAGE_EMULATOR_HOST says",
  ignore: ignoreFakeGcs,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!fakeGcsBinary.path) throw missingBinaryError(fakeGcsBinary);
    const gcs = await startFakeGcs();
    const dir = await makeTempDir("gcs-emulator-env");
    try {
      const bucket = await gcs.createBucket();
      const url = `gs://${bucket}/team?endpoint=${gcs.apiEndpoint}&project=${gcs.projectId}`;
      await Deno.mkdir(`${dir}/c1/notes`, { recursive: true });
      await Deno.writeTextFile(`${dir}/c1/notes/a.txt`, "a");
      // The same server, named without the API path, as the emulator's docs write it.
      const same = { HOME: dir, STORAGE_EMULATOR_HOST: gcs.apiEndpoint };
      const pushed = await cli(["push", "--init", "--cache", "c1", "--store", url], same, dir);
      assert.equal(pushed.code, 0, `${pushed.out}${pushed.err}`);
      assert.match(pushed.out, /^Pushed 1 file/m);
      // Another address, where nothing listens: the store's endpoint still decides.
      const elsewhere = { HOME: dir, STORAGE_EMULATOR_HOST: "http://127.0.0.1:9" };
      const pulled = await cli(["pull", "--init", "--cache", "c2", "--store", url], elsewhere, dir);
      assert.equal(pulled.code, 0, `${pulled.out}${pulled.err}`);
      assert.match(pulled.out, /^Pulled 1 file/);
      assert.equal(await Deno.readTextFile(`${dir}/c2/notes/a.txt`), "a");
    } finally {
      await removeTempDir(dir);
      await gcs.stop();
    }
  },
});
