import assert from "node:assert/strict";
import {
  capped,
  forTerminal,
  namingTheCache,
  namingTheStore,
  NOTES_SHOWN_PER_GATE,
  Output,
  PATHS_LISTED,
  shellWord,
  streamWriter,
  WARNINGS_SHOWN_PER_CODE,
} from "./output.ts";
import { sluice, world } from "./cli_test_kit.ts";

/** A stream that takes `room` bytes (at most `chunk` per call), then fails as a closed pipe does. */
function pipe(
  room: number,
  chunk = 4,
  fail: () => Error = () => new Deno.errors.BrokenPipe("gone"),
) {
  const taken: number[] = [];
  return {
    taken,
    writeSync(p: Uint8Array): number {
      if (taken.length >= room) throw fail();
      const n = Math.min(chunk, p.length, room - taken.length);
      taken.push(...p.subarray(0, n));
      return n;
    },
  };
}

Deno.test("streamWriter writes each string whole, in as many calls as the stream needs", () => {
  const s = pipe(100, 3);
  const write = streamWriter(s);
  write("hello, ");
  write("world\n");
  assert.equal(new TextDecoder().decode(new Uint8Array(s.taken)), "hello, world\n");
});

Deno.test("streamWriter drops output once the reader is gone, instead of failing the command", () => {
  const s = pipe(5);
  const write = streamWriter(s);
  write("12345678"); // the pipe closes after 5 bytes
  write("more"); // dropped, no error
  assert.equal(new TextDecoder().decode(new Uint8Array(s.taken)), "12345");
  // Any other write failure still fails.
  const broken = streamWriter(pipe(0, 4, () => new Error("disk full")));
  assert.throws(() => broken("x"), /disk full/);
});

function captured(options: { json?: boolean; verbose?: boolean } = {}) {
  let out = "";
  const o = new Output({ stdout: (s) => (out += s), stderr: () => {} }, options);
  return { o, out: () => out };
}

Deno.test("gate notes: the first few per gate are shown, the rest counted on one line before the next result line", () => {
  const { o, out } = captured();
  for (let i = 0; i < NOTES_SHOWN_PER_GATE + 15; i++) {
    o.gate({ gate: "config-cas-writer", message: `f${i}: the remote already holds these bytes` });
  }
  o.gate({ gate: "overwrite-cas", message: "1 written only where none exists yet" });
  o.say("Pushed 25 files.");
  const lines = out().trimEnd().split("\n");
  assert.equal(lines.filter((l) => l.includes("already holds")).length, NOTES_SHOWN_PER_GATE);
  assert.deepEqual(lines.slice(-3), [
    "  overwrite-cas: 1 written only where none exists yet",
    "  config-cas-writer: 15 more notes like these (`--verbose` shows each; `--json` lists them)",
    "Pushed 25 files.",
  ]);
  assert.equal(o.gates.length, NOTES_SHOWN_PER_GATE + 16);
});

Deno.test("gate notes: --verbose shows each, --json prints none but lists them all", () => {
  const verbose = captured({ verbose: true });
  const json = captured({ json: true });
  for (const { o } of [verbose, json]) {
    for (let i = 0; i < 30; i++) o.gate({ gate: "config-cas-writer", message: `f${i}` });
    o.say("done");
  }
  assert.equal(
    verbose.out().split("\n").filter((l) => l.startsWith("  config-cas-writer: f")).length,
    30,
  );
  assert.doesNotMatch(verbose.out(), /more notes/);
  assert.equal(json.out(), "");
  assert.equal(json.o.gates.length, 30);
});

Deno.test("warnings: the first few of each code are shown, the rest counted on one line; --json keeps them all", () => {
  for (const options of [{}, { json: true }]) {
    let err = "";
    const o = new Output({ stdout: () => {}, stderr: (s) => (err += s) }, options);
    for (let i = 0; i < WARNINGS_SHOWN_PER_CODE + 15; i++) {
      o.warn({
        code: "changed_remotely",
        message: `notes/f${i}.txt was not pushed`,
        path: `notes/f${i}.txt`,
      });
    }
    o.warn({ code: "conflicts_left", message: "25 conflicts are unresolved" });
    o.say("Pushed 0 files.");
    o.finish();
    assert.deepEqual(err.trimEnd().split("\n").slice(-3), [
      `warning[changed_remotely]: notes/f${WARNINGS_SHOWN_PER_CODE - 1}.txt was not pushed`,
      "… and 15 more `changed_remotely` warnings like these (`--verbose` shows each; `--json` lists them)",
      "warning[conflicts_left]: 25 conflicts are unresolved",
    ]);
    assert.equal(o.warnings.length, WARNINGS_SHOWN_PER_CODE + 16);
  }
  let verbose = "";
  const v = new Output({ stdout: () => {}, stderr: (s) => (verbose += s) }, { verbose: true });
  for (let i = 0; i < 30; i++) {
    v.warn({ code: "changed_remotely", message: `f${i}`, path: `f${i}` });
  }
  v.finish();
  assert.equal(verbose.trimEnd().split("\n").length, 30);
});

Deno.test("warnings: a summary past the first few (a library's own and-N-more) counts as the warnings it stands for, never as one more", () => {
  let err = "";
  const o = new Output({ stdout: () => {}, stderr: (s) => (err += s) }, {});
  for (let i = 0; i < WARNINGS_SHOWN_PER_CODE; i++) {
    o.warn({ code: "pull_skipped_uncommitted", message: `f${i} was skipped`, path: `f${i}` });
  }
  o.warn({
    code: "pull_skipped_uncommitted",
    message: "422 more file(s) were skipped",
    count: 422,
  });
  o.finish();
  assert.deepEqual(err.trimEnd().split("\n").slice(-2), [
    `warning[pull_skipped_uncommitted]: f${WARNINGS_SHOWN_PER_CODE - 1} was skipped`,
    "… and 422 more `pull_skipped_uncommitted` warnings like these (`--verbose` shows each; `--json` lists them)",
  ]);
  assert.doesNotMatch(err, /and 1 more/);
});

Deno.test("warnings: many of no path (a refusal per file of a resolve) are capped as any others", () => {
  let err = "";
  const o = new Output({ stdout: () => {}, stderr: (s) => (err += s) }, {});
  for (let i = 0; i < 30; i++) o.warn({ code: "version_exists", message: `f${i} refused` });
  o.finish();
  assert.equal(err.trimEnd().split("\n").length, WARNINGS_SHOWN_PER_CODE + 1);
  assert.match(err, /… and 20 more `version_exists` warnings/);
});

Deno.test("a push and a resolve of many files changed on both sides print a bounded number of lines", async () => {
  const w = await world();
  try {
    const [a, b, c] = [w.cache("a"), w.cache("b"), w.cache("c")];
    const n = 40;
    for (let i = 0; i < n; i++) await w.write(a, `notes/f${i}.txt`, "1\n");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    for (const dir of [b, c]) {
      assert.equal((await sluice(["pull", "--cache", dir, "--store", w.url])).code, 0);
    }
    for (let i = 0; i < n; i++) {
      for (const dir of [a, b, c]) await w.write(dir, `notes/f${i}.txt`, `from ${dir}\n`);
    }
    assert.equal((await sluice(["push", "--cache", a])).code, 0);
    const pushed = await sluice(["push", "--cache", b]);
    assert.equal(pushed.code, 3, pushed.err);
    assert.equal(
      pushed.err.split("\n").filter((l) => l.startsWith("warning[changed_remotely]")).length,
      WARNINGS_SHOWN_PER_CODE,
    );
    assert.match(
      pushed.err,
      new RegExp(
        `… and ${n - WARNINGS_SHOWN_PER_CODE} more \`changed_remotely\` warnings like these`,
      ),
    );
    const json = await sluice(["push", "--cache", c, "--json"]);
    assert.equal(json.code, 3, json.err);
    const warnings = json.json().warnings as { code: string }[];
    assert.equal(warnings.filter((x) => x.code === "changed_remotely").length, n);
    // Each file's resolution notes the same gate: the notes past the limit are counted once, for all.
    const resolved = await sluice(["resolve", "notes", "--mine", "--cache", b]);
    assert.equal(resolved.code, 0, resolved.err);
    const counts = resolved.out.split("\n").filter((l) => / more notes? like these/.test(l));
    assert.equal(counts.length, 1, resolved.out);
    assert.match(counts[0], /^ {2}overwrite-cas: \d+ more notes like these/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("capped lists up to the limit, then counts the rest on one line", () => {
  const more = (n: number) => `+${n}`;
  assert.deepEqual(capped(["a", "b"], more, 2), ["a", "b"]);
  assert.deepEqual(capped(["a", "b", "c", "d"], more, 2), ["a", "b", "+2"]);
});

Deno.test("a push of many files the remote already holds prints a bounded number of lines", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    const b = w.cache("b");
    const c = w.cache("c");
    for (let i = 0; i < 40; i++) {
      for (const dir of [a, b, c]) await w.write(dir, `notes/n${i}.txt`, `note ${i}`);
    }
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    // The second cache never synced them: its walk finds each already on the datastore.
    const r = await sluice(["push", "--cache", b, "--store", w.url]);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trimEnd().split("\n");
    assert.ok(
      lines.length <= NOTES_SHOWN_PER_GATE + PATHS_LISTED + 4,
      `${lines.length} lines:\n${r.out}`,
    );
    assert.match(r.out, /unsynced-walk-guard: 30 more notes like these/);
    assert.equal(
      lines.at(-1),
      "Already on the datastore with the same bytes, now recorded as synced here: 40 files.",
    );
    const json = await sluice(["push", "--cache", c, "--store", w.url, "--json"]);
    assert.equal((json.json().skipped as unknown[]).length, 40);
  } finally {
    await w.cleanup();
  }
});

Deno.test("shellWord quotes what a shell would read otherwise (a store URL's ?, a JSON entry), and nothing else", () => {
  assert.equal(shellWord("config/app.yaml"), "config/app.yaml");
  assert.equal(
    shellWord("s3://b/p?endpoint=http://127.0.0.1:9000"),
    "'s3://b/p?endpoint=http://127.0.0.1:9000'",
  );
  assert.equal(shellWord("{}"), "'{}'");
  assert.equal(shellWord("it's"), "'it'\\''s'");
});

Deno.test("human output shows control characters in names escaped: a name can neither break a line nor drive the terminal", () => {
  assert.equal(forTerminal("notes/a\u001b[2Jb.txt"), "notes/a\\u001b[2Jb.txt");
  assert.equal(forTerminal("a\nb\tc\rd\u007f"), "a\\nb\\tc\\rd\\u007f");
  assert.equal(forTerminal("plain — ünïcode ok"), "plain — ünïcode ok");
});

Deno.test("namingTheCache adds the cache to each command that opens one, and to nothing else", () => {
  const args = ["--cache", "/data/my cache"];
  assert.equal(
    namingTheCache(
      "Run `sluice status`, then `sluice resolve <path> --mine|--theirs|--merged`.",
      args,
    ),
    "Run `sluice status --cache '/data/my cache'`, then `sluice resolve <path> --mine|--theirs|--merged --cache '/data/my cache'`.",
  );
  assert.equal(
    namingTheCache("`sluice lock inspect --model m/x` and `sluice index migrate`", args),
    "`sluice lock inspect --model m/x --cache '/data/my cache'` and `sluice index migrate --cache '/data/my cache'`",
  );
  // A command naming its cache already, or taking none, or not a command: unchanged.
  for (
    const text of [
      "`sluice push --cache /other --init`",
      "`sluice bucket create <store-url>`",
      "`sluice probe 's3://b'`",
      "`sluice status | head`",
      "`--verbose` shows each",
      "the lockfile `sluice`",
    ]
  ) assert.equal(namingTheCache(text, args), text);
  assert.equal(namingTheCache("Run `sluice status`.", []), "Run `sluice status`.");
});

Deno.test("namingTheStore fills the store-url placeholder with the store as one shell word", () => {
  const text = "create it (`sluice bucket create <store-url>`)";
  assert.equal(
    namingTheStore(text, "s3://b/p?endpoint=http://127.0.0.1:9000"),
    "create it (`sluice bucket create 's3://b/p?endpoint=http://127.0.0.1:9000'`)",
  );
  assert.equal(namingTheStore(text, "gs://b/p"), "create it (`sluice bucket create gs://b/p`)");
  assert.equal(namingTheStore(text, undefined), text);
});

Deno.test("the next command a message names acts on the cache given with --cache, and works as printed", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/todo.txt", "x\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.remove(`${a}/notes/todo.txt`);
  // Run from another directory, where the default cache (./.sluice-cache) does not exist.
  const pulled = await sluice(["pull", "--cache", a], { cwd: w.base });
  assert.equal(pulled.code, 2, pulled.err);
  const printed = pulled.out.match(/`sluice (pull --restore-deleted --cache \S+)`/);
  assert.ok(printed, pulled.out);
  assert.match(pulled.err, /warning\[sync_incomplete\]: .*`sluice pull --restore-deleted --cache /);
  const again = await sluice(printed[1].split(" "), { cwd: w.base });
  assert.equal(again.code, 0, again.err);
  assert.equal(await Deno.readTextFile(`${a}/notes/todo.txt`), "x\n");
  // Without --cache the default cache is the one meant: the commands stay as they were.
  const bare = await sluice(["resolve", "notes/todo.txt"], { cwd: a });
  assert.match(bare.err, /`sluice status` shows both versions/);
  await w.cleanup();
});

Deno.test("a pull that finds a file's object deleted outside Sluice exits 2 naming it, and keeps the rest", async () => {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, "notes/gone.txt", "x\n");
  await w.write(a, "notes/kept.txt", "y\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.remove(`${w.root}/objects/notes/gone.txt`);
  const pulled = await sluice(["pull", "--cache", b, "--store", w.url]);
  assert.equal(pulled.code, 2, pulled.out + pulled.err);
  assert.match(pulled.err, /warning\[sync_incomplete\]: .*notes\/gone\.txt/s);
  assert.match(pulled.err, /holds no object there/);
  assert.equal(await Deno.readTextFile(`${b}/notes/kept.txt`), "y\n");
  await w.cleanup();
});
