/**
 * What a sync the tool drives left behind reaches the tool's user: the tool
 * reads only the count of a push or a pull and prints no datastore events,
 * so a conflict would otherwise stay open in silence. Each "process" is an
 * extension instance with its own identity, cache and warning lines.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites, FALLBACK_WARNING } from "../../sync/transfer/conditional.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { extensionProcess } from "./process_kit.ts";

const APP = "config/app.yaml";
const LOCKFILE = "config/upstream_extensions.json";
const LABEL = "[@sluice/store-datastore]";

const proc = (store: InMemoryStore, name: string) =>
  extensionProcess(store, name, {
    createService: createSluice,
    prefix: "sluice-ext-said-",
    conditional: new ConditionalWrites(),
  });

/** Two caches of one store that synced APP; a then published its edit, and b edited it too (not pushed). */
async function bothEdited() {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const b = await proc(store, "b");
  await a.write(APP, "v1\n");
  await a.svc.pushChanged();
  await b.svc.pullChanged();
  await a.write(APP, "from a\n");
  await a.svc.pushChanged();
  await b.write(APP, "from b\n");
  return { store, a, b };
}

Deno.test("said: a push that leaves a conflict publishes the rest, returns, and warns conflicts_left with the path and the command", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const b = await proc(store, "b");
  await a.write(APP, "v1\n");
  assert.equal(await a.svc.pushChanged(), 1);
  assert.equal(await b.svc.pullChanged(), 1);
  await a.write(APP, "from a\n");
  assert.equal(await a.svc.pushChanged(), 1);
  await b.write(APP, "from b\n");
  await b.write("files/other.txt", "other\n");
  // Never thrown: the tool would fail the command (a workflow step, a login) after the rest was published.
  assert.equal(await b.svc.pushChanged(), 1);
  const said = b.lines.filter((l) => l.startsWith(`${LABEL} warning[conflicts_left]:`));
  assert.equal(said.length, 1, b.lines.join("\n"));
  assert.match(said[0], new RegExp(`${APP}.*npx sluice status --cache ${b.cache} --store`, "s"));
  // The rest was published; both copies of the conflicting file are kept.
  assert.equal(store.peekText("files/other.txt"), "other\n");
  assert.equal(store.peekText(APP), "from a\n");
  assert.equal(await Deno.readTextFile(`${b.cache}/${APP}`), "from b\n");
});

Deno.test("said: a pull that finds a conflict warns conflicts_left through the extension's lines, and returns", async () => {
  const { a, b } = await bothEdited();
  assert.equal(await b.svc.pullChanged(), 0);
  const said = b.lines.filter((l) =>
    l.startsWith("[@sluice/store-datastore] warning[conflicts_left]")
  );
  assert.equal(said.length, 1, b.lines.join("\n"));
  assert.match(said[0], new RegExp(`${APP}.*npx sluice status --cache ${b.cache}`, "s"));
  assert.equal(await Deno.readTextFile(`${b.cache}/${APP}`), "from b\n", "the local copy kept");
  assert.deepEqual(a.lines, []);
});

Deno.test("said: the endpoint-fallback warning of a push through the tool is written, once", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "ignore";
  const a = await proc(store, "a");
  await a.write(APP, "v1\n");
  assert.equal(await a.svc.pushChanged(), 1);
  await a.write(APP, "v2\n");
  assert.equal(await a.svc.pushChanged(), 1);
  const fallback = a.lines.filter((l) => l.includes(`warning[${FALLBACK_WARNING}]`));
  assert.equal(fallback.length, 1, a.lines.join("\n"));
});

Deno.test("said: a library warning naming Sluice commands gives each with this cache's --cache and --store, so it runs as printed", async () => {
  const { b } = await bothEdited();
  await b.svc.pushChanged();
  const said = b.lines.filter((l) => l.startsWith(`${LABEL} warning[config_changed_remotely]:`));
  assert.equal(said.length, 1, b.lines.join("\n"));
  const target = `--cache ${b.cache} --store store://mem`;
  assert.ok(said[0].includes(`Run \`sluice status ${target}\` to see both versions`), said[0]);
  assert.ok(
    said[0].includes(`then \`sluice resolve ${APP} --mine|--theirs|--merged ${target}\`.`),
    said[0],
  );
  assert.doesNotMatch(said[0], /`sluice status`/);
  // One that says its cache already (cliNext) is written as it was made.
  const left = b.lines.filter((l) => l.startsWith(`${LABEL} warning[conflicts_left]:`));
  assert.equal(left.length, 1, b.lines.join("\n"));
  assert.ok(left[0].includes(`\`npx sluice status ${target}\` from a Sluice checkout`), left[0]);
  assert.ok(left[0].includes("`sluice resolve <path> --mine|--theirs|--merged`"), left[0]);
});

Deno.test("said: a lock's warning gives its command for that very lock, with the datastore's --cache and --store", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  await a.svc.pullChanged(); // the tool opens the cache's service before it locks
  const lock = a.provider.createLock("/repo/a/.swamp", { lockKey: "data/t/m/.lock" });
  await lock.acquire();
  store.unreachable = true;
  await lock.release(); // never throws: it warns and leaves the lock to go stale
  store.unreachable = false;
  const said = a.lines.filter((l) => l.startsWith(`${LABEL} warning[lock_release_failed]:`));
  assert.ok(said.length >= 1, a.lines.join("\n"));
  assert.ok(
    said.some((l) =>
      l.includes(
        `\`sluice lock release --force --model t/m --cache ${a.cache} --store store://mem\``,
      )
    ),
    said.join("\n"),
  );
  await lock.forceRelease((await lock.inspect())!.nonce);
});

for (const bulk of [false, true]) {
  Deno.test(
    `said: the tool's write of the managed lockfile${
      bulk ? " (the whole cache marked)" : ""
    }, published through its transaction, is no file left behind`,
    async () => {
      const store = new InMemoryStore();
      const a = await proc(store, "a");
      const b = await proc(store, "b");
      await a.write(LOCKFILE, '{"@acme/a":{"version":"1"}}\n');
      await a.svc.pushChanged();
      await b.svc.pullChanged();
      // b's tool adds an extension to the copy it synced: the bridge publishes the entry.
      const both = '{"@acme/a":{"version":"1"},"@acme/b":{"version":"2"}}\n';
      if (bulk) {
        await b.svc.markDirty({});
        await Deno.writeTextFile(`${b.cache}/${LOCKFILE}`, both);
      } else await b.write(LOCKFILE, both);
      // The lockfile, published through its transaction, counts as the file pushed.
      assert.equal(await b.svc.pushChanged(), 1);
      assert.deepEqual(JSON.parse(store.peekText(LOCKFILE)!), {
        "@acme/a": { version: "1" },
        "@acme/b": { version: "2" },
      });
      assert.deepEqual(
        b.lines.filter((l) => /warning\[(sync_incomplete|conflicts_left)\]/.test(l)),
        [],
        b.lines.join("\n"),
      );
    },
  );
}

Deno.test("said: two repos changing one lockfile entry at once: the second change is not written over the first, and is told of with the command that makes it anyway", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const b = await proc(store, "b");
  const start = { "@acme/a": { version: "1.0.0" }, "@acme/b": { version: "2.0.0" } };
  await a.write(LOCKFILE, JSON.stringify(start));
  await a.svc.pushChanged();
  await b.svc.pullChanged();
  // a removes @acme/a and moves @acme/b to 2.1.0; b moves @acme/a to 1.1.0 and @acme/b to 3.0.0, and adds @acme/c.
  await a.write(LOCKFILE, JSON.stringify({ "@acme/b": { version: "2.1.0" } }));
  await b.write(
    LOCKFILE,
    JSON.stringify({
      "@acme/a": { version: "1.1.0" },
      "@acme/b": { version: "3.0.0" },
      "@acme/c": { version: "1.0.0" },
    }),
  );
  await a.svc.pushChanged();
  await b.svc.pushChanged();
  assert.deepEqual(JSON.parse(store.peekText(LOCKFILE)!), {
    "@acme/b": { version: "2.1.0" },
    "@acme/c": { version: "1.0.0" },
  }, "a's changes stand; b's new entry is added");
  const said = b.lines.filter((l) => l.includes("warning[lockfile_entry_conflict]"));
  assert.equal(said.length, 2, b.lines.join("\n"));
  assert.match(
    said.join("\n"),
    /@acme\/a .*from \{"version":"1\.0\.0"\} to no entry.*sluice lockfile add @acme\/a '\{"version":"1\.1\.0"\}'/,
  );
  assert.match(
    said.join("\n"),
    /@acme\/b .*to \{"version":"2\.1\.0"\}.*sluice lockfile add @acme\/b '\{"version":"3\.0\.0"\}'/,
  );
});

Deno.test("said: a data version deleted here while its marker here names it is told to move the marker and push both, not to push it by path", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const data = "data/t/m/out";
  for (const v of ["1", "2"]) {
    await a.write(`${data}/${v}/raw`, `version ${v}\n`);
    await a.write(`${data}/${v}/metadata.yaml`, `version: ${v}\n`);
  }
  await a.write(`${data}/latest`, "2");
  await a.svc.pushChanged();
  await Deno.remove(`${a.cache}/${data}/2`, { recursive: true });
  await a.svc.markDirty({});
  await a.svc.pushChanged();
  const said = a.lines.filter((l) => l.startsWith(`${LABEL} warning[local_deletions_kept]:`));
  assert.equal(said.length, 1, a.lines.join("\n"));
  assert.ok(said[0].includes(`${data}/latest names their version (2)`), said[0]);
  assert.ok(said[0].includes(`sluice push ${data}/2 ${data}/latest`), said[0]);
  assert.doesNotMatch(said[0], /run `sluice push <path>…` naming them/);
  assert.equal(store.peekText(`${data}/2/raw`), "version 2\n", "kept on the datastore");
});
