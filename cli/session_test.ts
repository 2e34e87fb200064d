import assert from "node:assert/strict";
import { dirname } from "node:path";
import { LocalCache } from "../sync/transfer/cache.ts";
import { sluice, world } from "./cli_test_kit.ts";
import { CLI_STORE_STATE, noticingStore, retryNotice } from "./session.ts";
import { NotFoundError, UnreachableError } from "../sync/errors.ts";
import { STORE_RECORD, type StoreRecord } from "../sync/store_record.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { openStore, parseStoreUrl } from "./store_url.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a missing cache directory is refused (cache_not_found, 66) unless --init", async () => {
  const w = await world();
  const typo = `${w.base}/typo-cache`;
  const push = await sluice(["push", "--cache", typo, "--store", w.url]);
  assert.equal(push.code, 66, push.err);
  assert.match(
    push.err,
    /^error\[cache_not_found\]: The cache directory .*typo-cache does not exist/,
  );
  // The command as it was run, with --init: it can be copied and run.
  assert.match(push.err, /`sluice push --cache \/\S*typo-cache --store file:\/\/\S+ --init`/);
  assert.equal(push.out, "");
  assert.equal(await exists(typo), false, "nothing was created");

  const nested = await sluice(["lock", "list", "--cache", typo, "--store", w.url, "--json"]);
  assert.equal(nested.code, 66);
  assert.equal((nested.json().error as { code: string }).code, "cache_not_found");
  // Only a push or a pull starts a cache: elsewhere --init is not offered (it would not help).
  assert.doesNotMatch(nested.err, /sluice lock list .*--init/);
  assert.match(
    nested.err,
    /a new cache is started by its first `sluice pull --init --cache \S+typo-cache`/,
  );

  await w.write(w.cache("a"), "logs/run.log", "ok\n");
  assert.equal((await sluice(["push", "--cache", `${w.base}/a`, "--store", w.url])).code, 0);
  const cloned = await sluice(["pull", "--init", "--cache", typo, "--store", w.url, "--json"]);
  assert.equal(cloned.code, 0, cloned.err);
  assert.deepEqual(cloned.json().fetched, ["logs/run.log"]);
  await w.cleanup();
});

/**
 * A store a cache pushed `notes/team.txt` to, and a project directory
 * holding `src/main.c` that is no cache (named by mistake as one).
 */
async function teamAndProject() {
  const w = await world();
  await w.write(w.cache("a"), "notes/team.txt", "the team's\n");
  assert.equal((await sluice(["push", "--cache", `${w.base}/a`, "--store", w.url])).code, 0);
  const project = `${w.base}/project`;
  await w.write(project, "src/main.c", "int main;\n");
  return { w, project };
}

Deno.test("a directory that holds files but was never a cache is refused (cache_not_found, 66) by push and pull unless --init", async () => {
  const { w, project } = await teamAndProject();
  await w.write(project, "notes/team.txt", "mine\n");
  for (const command of ["pull", "push"]) {
    const r = await sluice([command, "--cache", project, "--store", w.url]);
    assert.equal(r.code, 66, `${command}: ${r.err}`);
    assert.match(
      r.err,
      /^error\[cache_not_found\]: The directory \S*project holds files but is no cache/,
    );
    assert.match(
      r.err,
      new RegExp(`\`sluice ${command} --cache \\S*project --store file://\\S+ --init\``),
    );
  }
  assert.equal(await Deno.readTextFile(`${project}/notes/team.txt`), "mine\n");
  assert.equal(await exists(`${project}/.sluice`), false, "nothing was written there");
  const status = await sluice([
    "pull",
    "--init",
    "--cache",
    `${w.base}/b`,
    "--store",
    w.url,
    "--json",
  ]);
  assert.deepEqual(status.json().fetched, ["notes/team.txt"], "nothing was pushed");
  // An empty directory is a new cache as it is; --init makes one of a full one.
  const empty = `${w.base}/empty`;
  await Deno.mkdir(empty);
  assert.equal((await sluice(["pull", "--cache", empty, "--store", w.url])).code, 0);
  // Its own file is pushed; the datastore's copy it never synced is not written over (exit 2).
  const made = await sluice(["push", "--init", "--cache", project, "--store", w.url, "--json"]);
  assert.equal(made.code, 2, made.err);
  assert.deepEqual(made.json().uploaded, ["src/main.c"]);
  await w.cleanup();
});

Deno.test("push --init of a directory of files against a datastore that cannot be reached leaves no state behind: it is no cache to the next command", async () => {
  const w = await world();
  const dir = `${w.base}/files`;
  await w.write(dir, "notes/a.txt", "mine\n");
  const url = "s3://init-bucket/p?endpoint=http://127.0.0.1:9&retries=0&timeout=500";
  const env = { AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" };
  for (const command of ["push", "pull"]) {
    const r = await sluice([command, "--init", "--cache", dir, "--store", url], { env });
    assert.equal(r.code, 69, r.err);
    assert.equal(await exists(`${dir}/.sluice`), false, `${command}: no state left behind`);
    // It says so, not that local changes stay dirty in a cache.
    assert.match(
      r.err,
      /No cache was made: \S+\/files is no cache, as before, and its files were not touched/,
    );
    assert.doesNotMatch(r.err, /stay in the cache and dirty/);
    assert.match(r.err, new RegExp(`then run \`sluice ${command} --init --cache `));
  }
  // A new directory: it goes again, and the error says so.
  const fresh = `${w.base}/fresh`;
  const pulled = await sluice(["pull", "--init", "--cache", fresh, "--store", url], { env });
  assert.equal(pulled.code, 69, pulled.err);
  assert.equal(await exists(fresh), false);
  assert.match(pulled.err, /No cache was made: the new directory \S+\/fresh was removed again/);
  assert.equal(await Deno.readTextFile(`${dir}/notes/a.txt`), "mine\n");
  const again = await sluice(["push", "--cache", dir, "--store", url], { env });
  assert.equal(again.code, 66, again.err);
  await w.cleanup();
});

Deno.test("a missing file:// store directory is refused (store_not_found, 66) and the cache is not tied to it", async () => {
  const w = await world();
  const a = w.cache("a");
  const typo = `file://${w.base}/typo-store`;
  const pull = await sluice(["pull", "--cache", a, "--store", typo]);
  assert.equal(pull.code, 66, pull.err);
  assert.match(
    pull.err,
    /^error\[store_not_found\]: The store directory .*typo-store does not exist/,
  );
  assert.match(pull.err, /the cache was not tied to that store/);
  // A pull starts no datastore, --init or not: only a push does.
  assert.match(
    pull.err,
    /a new datastore is started by the first `sluice push --init --store \S+typo-store --cache \S+\/a`/,
  );
  const pullInit = await sluice(["pull", "--init", "--cache", `${w.base}/new`, "--store", typo]);
  assert.equal(pullInit.code, 66, pullInit.err);
  assert.match(
    pullInit.err,
    /^error\[store_not_found\]: The store directory .*typo-store does not exist/,
  );
  // Only a push or a pull may start one: status is not offered --init.
  const status = await sluice(["status", "--cache", a, "--store", typo]);
  assert.equal(status.code, 66, status.err);
  assert.doesNotMatch(status.err, /sluice status .*--init/);
  assert.match(
    status.err,
    /a new datastore is started by the first `sluice push --init --store \S+typo-store --cache \S+\/a`/,
  );
  assert.doesNotMatch(pull.out, /up to date/);
  assert.equal(await new LocalCache(a).readState(CLI_STORE_STATE), null);
  assert.equal(await exists(`${w.base}/typo-store`), false);

  await w.write(a, "logs/run.log", "ok\n");
  const push = await sluice(["push", "--cache", a, "--store", typo]);
  assert.equal(push.code, 66);
  const created = await sluice(["push", "--init", "--cache", a, "--store", typo]);
  assert.equal(created.code, 0, created.err);
  assert.match(created.out, /^Pushed 1 file/m);
  const again = await sluice(["pull", "--cache", a]);
  assert.equal(again.code, 0, again.err);
  await w.cleanup();
});

Deno.test("a --cache or file:// store that is a file is a configuration error naming the path", async () => {
  const w = await world();
  const file = `${w.base}/plain.txt`;
  await Deno.writeTextFile(file, "not a directory");
  const cache = await sluice(["push", "--cache", file, "--store", w.url]);
  assert.equal(cache.code, 78, cache.err);
  assert.match(cache.err, /^error\[invalid_config\]: --cache names .*plain\.txt, which is a file/);
  // The next step is named, and it works as named (on a datastore something was pushed to).
  await w.write(w.cache("seed"), "f", "seeded");
  assert.equal((await sluice(["push", "--cache", w.cache("seed"), "--store", w.url])).code, 0);
  const next = cache.err.match(/`sluice (pull --init --cache <new-dir> --store <store-url>)`/);
  assert.ok(next, cache.err);
  const started = await sluice(
    next[1].replace("<new-dir>", w.cache("fresh")).replace("<store-url>", w.url).split(" "),
  );
  assert.equal(started.code, 0, started.err);
  assert.match(cache.err, /\(or `sluice push --init --cache <new-dir> --store <store-url>`,/);
  await w.write(w.cache("own"), "g", "its own file");
  const pushed = await sluice(
    ["push", "--init", "--cache", w.cache("own"), "--store", w.url],
  );
  assert.equal(pushed.code, 0, pushed.err);
  const inside = await sluice(["push", "--init", "--cache", `${file}/sub`, "--store", w.url]);
  assert.equal(inside.code, 78, inside.err);
  assert.match(inside.err, /^error\[invalid_config\]: --cache names .*plain\.txt\/sub/);
  const store = await sluice(["push", "--cache", w.cache("a"), "--store", `file://${file}`]);
  assert.equal(store.code, 78, store.err);
  assert.match(store.err, /^error\[invalid_config\]: The store file:\/\/.*plain\.txt names/);
  await w.cleanup();
});

Deno.test("--json gives the store's URL as endpoint and its description apart", async () => {
  const w = await world();
  const a = w.cache("a");
  const s3 = "s3://bucket-x/team/ds?endpoint=http://127.0.0.1:9&region=eu-west-1";
  // Status reads the datastore's index: an endpoint that cannot be reached leaves it local-only.
  const keys = { AWS_ACCESS_KEY_ID: "id", AWS_SECRET_ACCESS_KEY: "secret" };
  const status = await sluice(["status", "--json", "--cache", a, "--store", s3], { env: keys });
  // Only this cache's side is known: not "all is well" (unreachable, 69).
  assert.equal(status.code, 69, status.err);
  assert.equal((status.json().outcome as { code: string }).code, "unreachable");
  assert.deepEqual((status.json().remote as { reachable: boolean }).reachable, false);
  assert.equal(status.json().endpoint, s3);
  assert.equal(status.json().endpointDescription, "s3://bucket-x/team/ds at http://127.0.0.1:9");

  const gs = await sluice([
    "status",
    "--json",
    "--cache",
    w.cache("b"),
    "--store",
    "gs://bucket-y?endpoint=http://127.0.0.1:9",
  ]);
  assert.equal(gs.code, 69, gs.err);
  assert.equal(gs.json().endpoint, "gs://bucket-y/?endpoint=http://127.0.0.1:9");
  assert.equal(gs.json().endpointDescription, "gs://bucket-y/ at http://127.0.0.1:9");

  const push = await sluice(["push", "--json", "--cache", w.cache("c"), "--store", w.url]);
  assert.equal(push.code, 0, push.err);
  assert.equal(push.json().endpoint, w.url);
  assert.equal(push.json().endpointDescription, w.url);
  for (const args of [["lock", "list"], ["lock", "inspect"]]) {
    const r = await sluice([...args, "--json", "--cache", w.cache("c")]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.json().endpoint, w.url, args.join(" "));
  }
  const probe = await sluice(["probe", "--json", w.url]);
  assert.equal(probe.json().endpoint, w.url);
  assert.equal(probe.json().endpointDescription, w.url);
  await w.cleanup();
});

Deno.test("noticingStore: a call that succeeds marks the store reached; one that fails does not; methods keep their private state", async () => {
  class Store {
    #answers: boolean;
    constructor(answers: boolean) {
      this.#answers = answers;
    }
    readonly endpoint = "test://store";
    get(): Promise<string> {
      return this.#answers ? Promise.resolve("body") : Promise.reject(new Error("no such bucket"));
    }
    close(): string {
      return `closed ${this.#answers}`;
    }
  }
  let reached = 0;
  const failing = noticingStore(new Store(false), () => reached++);
  await assert.rejects(failing.get(), /no such bucket/);
  assert.equal(failing.close(), "closed false", "a synchronous method runs on the store itself");
  assert.equal(failing.endpoint, "test://store");
  assert.equal(reached, 0);
  const answering = noticingStore(new Store(true), () => reached++);
  assert.equal(await answering.get(), "body");
  assert.equal(reached, 1);
  const missing = noticingStore({
    get: () => Promise.reject(new NotFoundError("_index/_meta.json")),
  }, () => reached++);
  await assert.rejects(missing.get());
  assert.equal(reached, 2, "not found is an answer: the bucket is there");
});

Deno.test("noticingStore: an answer is handed on once onReached has settled, and its failure instead", async () => {
  const steps: string[] = [];
  let settle = () => {};
  const store = noticingStore({ get: () => Promise.resolve("body") }, () => {
    steps.push("reached");
    return new Promise<void>((done) => settle = done);
  });
  const answer = store.get().then((body) => steps.push(`answer ${body}`));
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(steps, ["reached"], "the answer waits for onReached");
  settle();
  await answer;
  assert.deepEqual(steps, ["reached", "answer body"]);
  const unrecorded = noticingStore(
    { get: () => Promise.reject(new NotFoundError("_index/_meta.json")) },
    () => Promise.reject(new Error("state directory is read-only")),
  );
  await assert.rejects(unrecorded.get(), /read-only/);
});

/** Copies the directory `from` to `to` at once: nothing else runs meanwhile. */
function copyDir(from: string, to: string): void {
  Deno.mkdirSync(to, { recursive: true });
  for (const e of Deno.readDirSync(from)) {
    if (e.isDirectory) copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else Deno.copyFileSync(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/**
 * Runs `sluice <args>` on the cache `dir` as a process killed as it starts
 * its third upload (`put`) or fetch (`get`) of a file under `notes/`: the
 * cache is then what its disk held at that moment (copied to `crashed`),
 * the store what it held then (every later call fails).
 */
async function killedMidway(
  args: string[],
  op: "put" | "get",
  dir: string,
  crashed: string,
): Promise<void> {
  let calls = 0;
  let killed = false;
  const dying = (store: ObjectStore): ObjectStore =>
    new Proxy(store, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (typeof value !== "function") return value;
        return async (...callArgs: unknown[]) => {
          if (killed) throw new Error("killed");
          if (key === op && String(callArgs[0]).startsWith("notes/") && ++calls === 3) {
            killed = true;
            copyDir(dir, crashed);
            throw new Error("killed");
          }
          return await value.apply(target, callArgs);
        };
      },
    });
  await sluice(args, {
    openStore: (spec, o) => {
      const opened = openStore(spec, o);
      return { ...opened, store: dying(opened.store) };
    },
  });
  assert.equal(killed, true, `${args[0]} was killed midway`);
}

/** A store directory `name` beside the world's store, which a cache killed midway must not take. */
async function otherStore(w: { base: string }, name = "other"): Promise<string> {
  await Deno.mkdir(`${w.base}/${name}`);
  return `file://${w.base}/${name}`;
}

Deno.test("a first push killed after some uploads leaves the cache tied to its store: the next command takes it without --store, and another store is refused", async () => {
  const w = await world();
  const dir = `${w.base}/new`;
  for (let i = 1; i <= 6; i++) await w.write(dir, `notes/${i}.txt`, `${i}\n`);
  const crashed = `${w.base}/crashed`;
  await killedMidway(["push", "--init", "--cache", dir, "--store", w.url], "put", dir, crashed);

  const other = await otherStore(w);
  const refused = await sluice(["push", "--cache", crashed, "--store", other]);
  assert.equal(refused.code, 78, refused.err);
  assert.match(
    refused.err,
    /^error\[invalid_config\]: The cache \S+ mirrors file:\/\/\S+\/store, not /,
  );
  assert.match(refused.err, /drop --store/);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(other.slice(7))), [], "nothing went there");

  const again = await sluice(["push", "--cache", crashed, "--json"]);
  assert.equal(again.code, 0, again.err);
  assert.equal(again.json().endpoint, w.url);
  // Its two uploads that landed are found there, the rest uploaded.
  const { uploaded, identical } = again.json() as Record<string, string[]>;
  assert.deepEqual(
    [...uploaded, ...identical].sort(),
    [1, 2, 3, 4, 5, 6].map((i) => `notes/${i}.txt`),
  );
  assert.equal(identical.length, 2);
  await w.cleanup();
});

Deno.test("a first pull killed after some fetches leaves the cache tied to its store: the next pull takes it without --store, and another store is refused", async () => {
  const w = await world();
  const a = w.cache("a");
  for (let i = 1; i <= 6; i++) await w.write(a, `notes/${i}.txt`, `${i}\n`);
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const dir = `${w.base}/new`;
  const crashed = `${w.base}/crashed`;
  await killedMidway(["pull", "--init", "--cache", dir, "--store", w.url], "get", dir, crashed);

  const refused = await sluice(["pull", "--cache", crashed, "--store", await otherStore(w)]);
  assert.equal(refused.code, 78, refused.err);
  assert.match(refused.err, /mirrors file:\/\/\S+\/store, not /);

  const again = await sluice(["pull", "--cache", crashed, "--json"]);
  assert.equal(again.code, 0, again.err);
  assert.equal(again.json().endpoint, w.url);
  for (let i = 1; i <= 6; i++) {
    assert.equal(await Deno.readTextFile(`${crashed}/notes/${i}.txt`), `${i}\n`);
  }
  await w.cleanup();
});

Deno.test("a relative file:// store is recorded absolute: the cache used from another directory keeps its store", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/todo.txt", "x\n");
  const first = await sluice(["push", "--cache", a, "--store", "file://./store"], { cwd: w.base });
  assert.equal(first.code, 0, first.err);
  const record = await new LocalCache(a).readState<{ url: string }>(CLI_STORE_STATE);
  assert.equal(record?.url, w.url);
  const elsewhere = `${w.base}/elsewhere`;
  await Deno.mkdir(elsewhere);
  await w.write(a, "notes/todo.txt", "y\n");
  const later = await sluice(["push", "--cache", a, "--json"], { cwd: elsewhere });
  assert.equal(later.code, 0, later.err);
  assert.equal(later.json().endpoint, w.url);
  assert.deepEqual(later.json().uploaded, ["notes/todo.txt"]);
  assert.equal(
    await exists(`${elsewhere}/store`),
    false,
    "no store was taken from the other directory",
  );

  // A record of a relative URL (as written before) goes to the directory it recorded.
  await new LocalCache(a).writeState(CLI_STORE_STATE, {
    format: 1,
    url: "file://./store",
    identity: `file://${w.root}`,
  });
  const old = await sluice(["pull", "--cache", a, "--json"], { cwd: elsewhere });
  assert.equal(old.code, 0, old.err);
  assert.equal(old.json().endpoint, w.url);
  assert.equal(
    (await new LocalCache(a).readState<{ url: string }>(CLI_STORE_STATE))?.url,
    w.url,
    "recorded absolute once reached",
  );
  await w.cleanup();
});

Deno.test("the same bucket on another endpoint (a mistyped port) is refused before any request", async () => {
  const w = await world();
  const a = w.cache("a");
  const recorded = "s3://team-data/conf?endpoint=http://127.0.0.1:19601";
  await new LocalCache(a).writeState(CLI_STORE_STATE, {
    format: 1,
    url: recorded,
    identity: "s3://team-data/conf",
  });
  // The cache has a sync record (a path marked dirty): the other server's files are not its.
  await Deno.writeTextFile(`${a}/.sluice/dirty.log`, "notes/n.txt\n");
  const keys = { AWS_ACCESS_KEY_ID: "id", AWS_SECRET_ACCESS_KEY: "secret" };
  const other = "s3://team-data/conf?endpoint=http://127.0.0.1:19603";
  for (const cmd of ["pull", "push", "status"]) {
    const r = await sluice([cmd, "--cache", a, "--store", other], { env: keys });
    assert.equal(r.code, 78, r.err);
    assert.match(
      r.err,
      /mirrors s3:\/\/team-data\/conf at http:\/\/127\.0\.0\.1:19601, not at http:\/\/127\.0\.0\.1:19603/,
    );
    assert.match(r.err, /Nothing was changed/);
  }
  // The same endpoint written otherwise (a trailing slash) is the same store.
  const same = await sluice([
    "status",
    "--cache",
    a,
    "--store",
    "s3://team-data/conf?endpoint=http://127.0.0.1:19601/&retries=0&timeout=500",
  ], { env: keys });
  assert.doesNotMatch(same.err, /mirrors/);
  assert.deepEqual(
    (await new LocalCache(a).readState<{ url: string }>(CLI_STORE_STATE))?.url,
    recorded,
    "the record is untouched",
  );
  await w.cleanup();
});

Deno.test("a directory inside a cache is refused as a cache of its own", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/todo.txt", "x\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const inner = await sluice(["push", "--cache", `${a}/notes`, "--store", w.url]);
  assert.equal(inner.code, 78, inner.err);
  assert.match(inner.err, /lies inside the cache .*\/a: /);
  // The command it names acts on the outer cache, not on the one refused.
  assert.ok(inner.err.includes(`\`sluice push notes --cache ${a}\``), inner.err);
  assert.equal(await exists(`${w.root}/todo.txt`), false, "nothing published at the wrong path");
  await w.cleanup();
});

Deno.test("no --cache given inside a cache: the default cache is named as such, and the command to run names the cache", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/todo.txt", "x\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await w.write(a, "notes/todo.txt", "y\n");
  const inner = await sluice(["push", "notes/todo.txt", "--store", w.url], { cwd: a });
  assert.equal(inner.code, 78, inner.err);
  assert.match(inner.err, /No --cache was given, so the cache is the default \.\/\.sluice-cache/);
  // Not the advice for a --cache named inside a cache (push the default's own name).
  assert.doesNotMatch(inner.err, /sluice push \.sluice-cache/);
  assert.ok(
    inner.err.includes(`\`sluice push notes/todo.txt --store ${w.url} --cache ${a}\``),
    inner.err,
  );
  assert.equal(await exists(`${a}/.sluice-cache`), false, "no cache was made inside the cache");
  const again = await sluice(["push", "notes/todo.txt", "--store", w.url, "--cache", a], {
    cwd: a,
  });
  assert.equal(again.code, 0, again.err);

  // Outside any cache: a missing default is not taken for a mistyped --cache.
  const empty = `${w.base}/empty`;
  await Deno.mkdir(empty);
  const status = await sluice(["status", "--store", w.url], { cwd: empty });
  assert.equal(status.code, 66, status.err);
  assert.match(status.err, /no --cache was given/);
  assert.doesNotMatch(status.err, /is --cache mistyped/);
  const typo = await sluice(["status", "--store", w.url, "--cache", `${w.base}/typo`]);
  assert.match(typo.err, /is --cache mistyped/);
  await w.cleanup();
});

Deno.test("a cache whose state directory is a file is refused (73), whatever the command, and nothing is changed", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/todo.txt", "x\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.rename(`${a}/.sluice`, `${w.root}/state-kept`);
  await Deno.writeTextFile(`${a}/.sluice`, "a file");
  for (const cmd of ["status", "push", "pull"]) {
    const r = await sluice([cmd, "--cache", a, "--store", w.url]);
    assert.equal(r.code, 73, `${cmd}: ${r.err}`);
    assert.match(r.err, /error\[cache_unwritable\]: .*\.sluice is not a directory/);
  }
  assert.equal(await Deno.readTextFile(`${a}/.sluice`), "a file");
  await w.cleanup();
});

Deno.test("following the advice for a state directory that is a file publishes nothing of it, and the next command it names works", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/todo.txt", "x\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.rename(`${a}/.sluice`, `${w.root}/../state-kept`);
  await Deno.writeTextFile(`${a}/.sluice`, "a file");
  const refused = await sluice(["push", "--cache", a, "--store", w.url]);
  assert.equal(refused.code, 73, refused.err);
  // The operator runs the command the message gives, as given.
  const mv = /`mv (\S+) (\S+)`/.exec(refused.err);
  assert.ok(mv, refused.err);
  await Deno.rename(mv[1], mv[2]);
  // "then run the command again"
  const again = await sluice(["push", "--cache", a, "--store", w.url]);
  if (again.code !== 0) {
    // A cache without its state is started again with --init, as that refusal says.
    assert.equal(again.code, 66, again.err);
    assert.equal((await sluice(["push", "--init", "--cache", a, "--store", w.url])).code, 0);
  }
  const b = `${w.base}/b`;
  const pulled = await sluice(["pull", "--init", "--cache", b, "--store", w.url, "--json"]);
  assert.equal(pulled.code, 0, pulled.err);
  // The moved state is no file of the datastore: no peer ever pulls it.
  assert.deepEqual(pulled.json().fetched, ["notes/todo.txt"]);
  assert.equal(await exists(`${b}/.sluice.moved`), false);
  await w.cleanup();
});

Deno.test("a file:// store that is the cache, lies inside it or holds it is refused (78) before anything is written", async () => {
  const w = await world();
  const a = `${w.base}/a`;
  await w.write(a, "x/f.txt", "hi\n");
  const cases = [
    [`file://${a}/store`, /lies inside the cache/],
    [`file://${a}`, /is the cache directory itself/],
    [`file://${dirname(a)}`, /holds the cache/],
  ] as const;
  for (const [url, what] of cases) {
    const r = await sluice(["push", "--init", "--cache", a, "--store", url]);
    assert.equal(r.code, 78, `${url}: ${r.out}${r.err}`);
    assert.match(r.err, what, url);
    assert.match(r.err, /Nothing was changed/);
  }
  assert.deepEqual(await exists(`${a}/store`), false, "no store made in the cache");
  assert.deepEqual(await exists(`${a}/.sluice`), false, "the cache was not touched");
  await w.cleanup();
});

Deno.test("a file:// store that is another cache, or lies inside one, is refused (78): nothing of the store lands in that cache for its push to publish", async () => {
  const w = await world();
  const a = `${w.base}/a`;
  await w.write(a, "notes/a.txt", "a\n");
  assert.equal((await sluice(["push", "--init", "--cache", a, "--store", w.url])).code, 0);
  const b = `${w.base}/b`;
  await w.write(b, "x.txt", "from b\n");
  const cases = [
    [`file://${a}`, /is the cache .*\/a, which syncs with a datastore of its own/],
    [`file://${a}/store`, /lies inside the cache .*\/a, which syncs/],
  ] as const;
  for (const [url, what] of cases) {
    for (const cmd of [["push", "--init"], ["pull", "--init"]]) {
      const r = await sluice([...cmd, "--cache", b, "--store", url]);
      assert.equal(r.code, 78, `${cmd} ${url}: ${r.out}${r.err}`);
      assert.match(r.err, what, url);
      assert.match(r.err, /Nothing was changed/);
    }
  }
  const entries: string[] = [];
  for await (const e of Deno.readDir(a)) entries.push(e.name);
  assert.deepEqual(
    entries.sort(),
    [".sluice", "notes"],
    "nothing was written into the other cache",
  );
  const status = await sluice(["status", "--cache", a, "--json"]);
  assert.equal(status.code, 0, status.err);
  assert.match(status.out, /"dirty": \[\]/);
  await w.cleanup();
});

Deno.test("a cache that recorded a store but never synced a file takes another --store (a mistyped, empty prefix); once it has synced, another store is refused", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/n.txt", "n\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const b = `${w.base}/b`;
  const typo = `file://${w.base}/empty-store`;
  await Deno.mkdir(`${w.base}/empty-store`); // as a bucket's mistyped, empty prefix
  // A first pull that would make the cache is refused there, and makes none.
  const init = await sluice(["pull", "--init", "--cache", b, "--store", typo]);
  assert.equal(init.code, 66, init.err);
  // An empty directory is a cache: its pull records the store, and warns.
  await Deno.mkdir(b);
  const first = await sluice(["pull", "--cache", b, "--store", typo]);
  assert.equal(first.code, 0, first.err);
  assert.match(first.err, /datastore_empty/);
  const right = await sluice(["pull", "--cache", b, "--store", w.url]);
  assert.equal(right.code, 0, right.err);
  assert.equal(await Deno.readTextFile(`${b}/notes/n.txt`), "n\n");
  assert.equal(
    (await new LocalCache(b).readState<{ url: string }>(CLI_STORE_STATE))?.url,
    w.url,
    "the store that synced is recorded",
  );
  const back = await sluice(["pull", "--cache", b, "--store", typo]);
  assert.equal(back.code, 78, back.err);
  assert.match(back.err, /mirrors .*, not /);
  await w.cleanup();
});

Deno.test("a cache whose record of its store is unreadable, and that synced with it, refuses another store; its files stay", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/n.txt", "n\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const other = `file://${w.base}/other-store`;
  const o = w.cache("o");
  await w.write(o, "notes/o.txt", "o\n");
  assert.equal((await sluice(["push", "--init", "--cache", o, "--store", other])).code, 0);
  const record = `${new LocalCache(a).stateDir}/${CLI_STORE_STATE}`;
  for (const broken of ["{bad", '{"format":2,"url":"s3://b/p"}']) {
    await Deno.writeTextFile(record, broken);
    const pull = await sluice(["pull", "--cache", a, "--store", other]);
    assert.equal(pull.code, 78, `${broken}: ${pull.err}`);
    assert.match(pull.err, /invalid_config/);
    assert.match(pull.err, new RegExp(CLI_STORE_STATE.replace(".", "\\.")));
    assert.equal(await Deno.readTextFile(`${a}/notes/n.txt`), "n\n", "the synced file stays");
    assert.equal(await exists(`${a}/notes/o.txt`), false, "nothing of the other store is pulled");
    assert.equal(await Deno.readTextFile(record), broken, "the record is left as it is");
  }
  await w.cleanup();
});

Deno.test("a local-only path named to push is refused (local_only, 1): never 'Nothing to push'", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "data/t/m/.lock", "{}");
  await w.write(a, "notes/raw.sluice-0123456789ab.tmp", "left over");
  await w.write(a, "notes/keep.txt", "mine");
  for (
    const p of ["data/t/m/.lock", ".sluice/cli-store.json", "notes/raw.sluice-0123456789ab.tmp"]
  ) {
    const r = await sluice(["push", p, "--cache", a, "--store", w.url]);
    assert.equal(r.code, 1, `${p}: ${r.out}${r.err}`);
    assert.match(
      r.err,
      /^error\[local_only\]: \S+ is local-only: Sluice never pushes nor pulls it/,
    );
    assert.doesNotMatch(r.out, /Nothing to push/);
  }
  assert.equal((await sluice(["push", "notes/keep.txt", "--cache", a, "--store", w.url])).code, 0);
  await w.cleanup();
});

Deno.test("with no store given, a directory that holds files and no sync state is cache_not_found (66) for every command, as for push and pull; an empty one is told to pass --store (78)", async () => {
  const { w, project } = await teamAndProject();
  for (const args of [["status"], ["lock", "list"], ["push"], ["pull"]]) {
    const r = await sluice([...args, "--cache", project, "--json"]);
    assert.equal(r.code, 66, `${args.join(" ")}: ${r.err}`);
    assert.equal((r.json().error as { code: string }).code, "cache_not_found");
  }
  const told = await sluice(["status", "--cache", project]);
  assert.match(told.err, /is --cache mistyped\? Nothing was read or changed/);
  assert.doesNotMatch(told.err, /Invalid value for --store/);
  const empty = `${w.base}/empty`;
  await Deno.mkdir(empty);
  const r = await sluice(["status", "--cache", empty]);
  assert.equal(r.code, 78, r.err);
  assert.match(r.err, /^error\[invalid_config\]: No store was given: pass --store/);
  assert.equal(await exists(`${project}/.sluice`), false);
  await w.cleanup();
});

Deno.test("a command that is no push or pull, run on a directory that is no cache yet, leaves it none: a later push still asks for --init", async () => {
  const { w, project } = await teamAndProject();
  for (const args of [["status"], ["lock", "list"]]) {
    const r = await sluice([...args, "--cache", project, "--store", w.url]);
    assert.notEqual(r.code, 66, `${args.join(" ")}: ${r.err}`);
  }
  assert.equal(await exists(`${project}/.sluice`), false);
  const push = await sluice(["push", "--cache", project, "--store", w.url]);
  assert.equal(push.code, 66, push.err);
  await w.cleanup();
});

Deno.test("--init is taken only by push and pull: elsewhere it is a usage error (64) and nothing is created", async () => {
  const w = await world();
  const zed = `${w.base}/zed`;
  const store = `file://${w.base}/no-store`;
  for (
    const args of [
      ["status"],
      ["theirs", "config/app.yaml"],
      ["resolve", "config/app.yaml", "--mine"],
      ["lock", "list"],
      ["lock", "release", "--force"],
      ["lockfile", "retry"],
      ["index", "migrate"],
    ]
  ) {
    const r = await sluice([...args, "--init", "--cache", zed, "--store", store, "--json"]);
    const what = args.filter((a) => !a.includes(".") && !a.startsWith("-")).join(" ");
    assert.equal(r.code, 64, `${what}: ${r.err}`);
    assert.equal((r.json().error as { code: string }).code, "usage", what);
    assert.match(r.err, new RegExp(`^error\\[usage\\]: ${what} does not take --init: only `));
    assert.match(r.err, /Nothing was created or changed\. Run it without --init: `sluice /);
    assert.match(r.err, /start it first with `sluice pull --init --cache \S+\/zed`/);
    assert.equal(await exists(zed), false, `${what} created nothing`);
    assert.equal(await exists(`${w.base}/no-store`), false, `${what} created no store`);
    assert.doesNotMatch((await sluice([...args, "--help"])).out, /--init/, `${what} --help`);
    assert.doesNotMatch(r.err, /Run it without --init: `[^`]*--init/);
  }
  for (const command of ["push", "pull"]) {
    assert.match((await sluice([command, "--help"])).out, /--init/, command);
  }
  const status = await sluice(["status", "--cache", w.cache("a"), "--store", w.url]);
  assert.equal(status.code, 0, status.err);
  await w.cleanup();
});

Deno.test("on a directory that is no cache: the --init advice names a store when none was given, --init without one says to name it, and status says what a first push would do", async () => {
  const { w, project } = await teamAndProject();
  const push = await sluice(["push", "--cache", project]);
  assert.equal(push.code, 66, push.err);
  assert.match(push.err, /`sluice push --cache \S+project --init --store <store-url>`/);
  const init = await sluice(["push", "--cache", project, "--init"]);
  assert.equal(init.code, 78, init.err);
  assert.match(init.err, /^error\[invalid_config\]: No store was given: pass --store/);
  assert.match(init.err, /which --init starts with the store named/);
  const status = await sluice(["status", "--cache", project, "--store", w.url]);
  assert.equal(status.code, 0, status.err);
  assert.match(
    status.out,
    /is no cache yet \(it has no \.sluice\/ of Sluice's\): this is what a first push would do/,
  );
  assert.match(
    status.out,
    /Run `sluice push --init --store file:\/\/\S+ --cache \S+` to make this directory a cache and publish them/,
  );
  assert.doesNotMatch(status.out, /Run `sluice push` to publish them/);
  assert.equal(await exists(`${project}/.sluice`), false);
  await w.cleanup();
});

Deno.test("a cache whose store record says the swamp extension made it holds a data version still being written (no metadata.yaml), and keeps the record", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/x.txt", "x\n");
  assert.equal((await sluice(["push", "--init", "--cache", a, "--store", w.url])).code, 0);
  const cache = new LocalCache(a);
  const record = await cache.readState<StoreRecord>(STORE_RECORD);
  await cache.writeState(STORE_RECORD, { ...record!, unfinishedVersions: "hold" });
  const dir = "data/shell/cmd/m1/log/1";
  await w.write(a, `${dir}/raw`, "line 1\n");
  const held = await sluice(["push", "--cache", a]);
  assert.equal(held.code, 2, held.err);
  assert.match(held.out, /still being written \(its directory holds no metadata\.yaml yet\)/);
  assert.equal(await exists(`${w.root}/objects/${dir}/raw`), false);
  await w.write(a, `${dir}/metadata.yaml`, "version: 1\n");
  const pushed = await sluice(["push", "--cache", a]);
  assert.equal(pushed.code, 0, pushed.err);
  assert.equal((await cache.readState<StoreRecord>(STORE_RECORD))?.unfinishedVersions, "hold");
});

/** `sluice args` over the world's store, which stops answering at the third put or get under `notes/`. */
async function outageMidway(args: string[], op: "put" | "get") {
  let calls = 0;
  return await sluice(args, {
    openStore: (spec, o) => {
      const opened = openStore(spec, o);
      const store = opened.store;
      const down = new Proxy(store, {
        get(target, key) {
          const value = Reflect.get(target, key);
          if (typeof value !== "function") return value;
          return async (...callArgs: unknown[]) => {
            if (key === op && String(callArgs[0]).startsWith("notes/") && ++calls >= 3) {
              throw new UnreachableError("connection refused (injected)");
            }
            return await value.apply(target, callArgs);
          };
        },
      });
      return { ...opened, store: down };
    },
  });
}

Deno.test("a push or a pull that loses the datastore midway names itself, as typed, to run again", async () => {
  const w = await world();
  const a = w.cache("a");
  for (let i = 1; i <= 6; i++) await w.write(a, `notes/${i}.txt`, `${i}\n`);
  const push = await outageMidway(["push", "--cache", a, "--store", w.url], "put");
  assert.equal(push.code, 69, push.err);
  assert.match(push.err, /^error\[unreachable\]: The datastore could not be reached: /);
  assert.match(push.err, /local changes stay in the cache and dirty/);
  assert.ok(push.err.includes(`run \`sluice push --cache ${a} --store ${w.url}\` again`), push.err);
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const b = w.cache("b");
  const pull = await outageMidway(["pull", "--init", "--cache", b, "--store", w.url], "get");
  assert.equal(pull.code, 69, pull.err);
  assert.ok(
    pull.err.includes(`run \`sluice pull --init --cache ${b} --store ${w.url}\` again`),
    pull.err,
  );
  // Run again as told, it finishes.
  const again = await sluice(["pull", "--init", "--cache", b, "--store", w.url]);
  assert.equal(again.code, 0, again.err);
  assert.equal(await Deno.readTextFile(`${b}/notes/6.txt`), "6\n");
});

Deno.test("a store retry notice says what to set to fail sooner, or what the store URL sets already", () => {
  const notice = (url: string) => {
    const said: string[] = [];
    const on = retryNotice(parseStoreUrl(url), { warn: (w) => void said.push(w.message) })!;
    on({ op: "get", key: "a.txt", attempt: 1, delayMs: 100, detail: "timed out" });
    return said[0];
  };
  assert.match(
    notice("s3://bkt?endpoint=http://127.0.0.1:9000"),
    /To fail sooner, set \?timeout=<ms> and \?retries=<n> on the store URL\.$/,
  );
  assert.match(
    notice("s3://bkt?endpoint=http://127.0.0.1:9000&timeout=1000"),
    /To fail sooner, set \?retries=<n> on the store URL\.$/,
  );
  assert.match(
    notice("s3://bkt?endpoint=http://127.0.0.1:9000&timeout=1000&retries=1"),
    /The store URL sets timeout=1000 and retries=1: lower them to fail sooner\.$/,
  );
});

Deno.test("a mistyped store URL is told first, before the cache's own checks (whose next command would repeat it)", async () => {
  const { w, project } = await teamAndProject();
  await w.write(project, "notes/team.txt", "mine\n");
  for (const url of ["s4://bucket/p", "s3:/bucket/p", "s3://bucket/p?endpont=http://127.0.0.1:9"]) {
    const r = await sluice(["push", "--cache", project, "--store", url]);
    assert.equal(r.code, 78, `${url}: ${r.err}`);
    assert.match(r.err, /^error\[invalid_config\]/, url);
  }
  assert.equal(await exists(`${project}/.sluice`), false, "nothing was written there");
});

Deno.test("status over a datastore that does not answer asks it once, not once more for its dry run", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/one.md", "1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  // A new file, not marked: the walk's dry run reads the index for it.
  await w.write(a, "notes/two.md", "2\n");
  let calls = 0;
  const status = await sluice(["status", "--cache", a], {
    openStore: (spec, o) => {
      const opened = openStore(spec, o);
      const down = new Proxy(opened.store, {
        get(target, key) {
          const value = Reflect.get(target, key);
          if (typeof value !== "function") return value;
          if (!["get", "getStream", "head", "put", "delete"].includes(String(key))) {
            return value.bind(target);
          }
          return () => {
            calls++;
            return Promise.reject(new UnreachableError("connection refused (injected)"));
          };
        },
      });
      return { ...opened, store: down };
    },
  });
  assert.equal(status.code, 69, status.err);
  assert.match(status.out, /notes\/two\.md/, "this cache's side is shown");
  // The index token's read alone: the file store makes one attempt and the
  // service retries it (3 retries by default), so 4 attempts, not 8.
  assert.ok(calls <= 4, `${calls} requests to a datastore found unreachable at the first`);
  await w.cleanup();
});

Deno.test("a cache whose sync state was removed: status, push and pull name the way out of a lost sync state, not only --init, whose push would undo a peer's deletion", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    const b = w.cache("b");
    await w.write(a, "notes/old.txt", "one\n");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
    await Deno.remove(`${b}/.sluice`, { recursive: true });
    const runs = [
      await sluice(["status", "--cache", b]),
      await sluice(["push", "--cache", b, "--store", w.url]),
      await sluice(["pull", "--cache", b, "--store", w.url]),
    ];
    for (const r of runs) {
      assert.equal(r.code, 66, r.err);
      assert.match(r.err, /^error\[cache_not_found\]/);
      assert.match(r.err, /sync state was removed/);
      assert.match(r.err, /sluice pull --init --store \S+ --cache <new dir>/, r.err);
      assert.match(r.err, /copy into it the files you changed/);
    }
  } finally {
    await w.cleanup();
  }
});
