import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";

const CFG = "config/app.yaml";

Deno.test("status: a copy a pull set aside, published by resolve --mine, is told as kept from a resolved conflict, safe to delete", async () => {
  const w = await world();
  const a = w.cache("a");
  const c = w.cache("c");
  await w.write(a, CFG, "from a\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await w.write(c, CFG, "from c, never synced\n");
  const pulled = await sluice(["pull", "--cache", c, "--store", w.url]);
  assert.equal(pulled.code, 3, pulled.err);
  const resolved = await sluice(["resolve", CFG, "--mine", "--cache", c]);
  assert.equal(resolved.code, 0, resolved.err);
  assert.equal(await Deno.readTextFile(`${c}/${CFG}`), "from c, never synced\n");

  const doc = (await sluice(["status", "--cache", c, "--json"])).json();
  const [kept, ...more] = doc.setAside as {
    path: string;
    resolved?: boolean;
    sameAsPath?: boolean;
    dir: string;
  }[];
  assert.deepEqual(more, []);
  assert.equal(kept.path, CFG);
  assert.equal(kept.resolved, true);
  assert.equal(kept.sameAsPath, true);
  assert.equal(await Deno.readTextFile(`${kept.dir}/${CFG}`), "from c, never synced\n");

  const status = await sluice(["status", "--cache", c]);
  assert.equal(status.code, 0, status.err);
  assert.match(
    status.out,
    /kept from a conflict resolved since, which no open conflict names: config\/app\.yaml holds the same bytes now, so it is safe to delete: `rm -r \S+\/\.sluice\/set-aside\/[^`]+`/,
  );
  assert.doesNotMatch(status.out, /copy it back/, "it is published already");

  // Edited since: the copy no longer matches its path, and is not deleted.
  await w.write(c, CFG, "edited after\n");
  const edited = await sluice(["status", "--cache", c]);
  assert.match(edited.out, /config\/app\.yaml holds other bytes now \(or nothing\)/);
  assert.equal(await Deno.readTextFile(`${kept.dir}/${CFG}`), "from c, never synced\n");
  await w.cleanup();
});
