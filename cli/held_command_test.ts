import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";

const V = "data/shell/cmd/m1/out/2";

/** Records `dirs` in the cache `a` as a refused run's versions held (as `erasure_refused` leaves them), for `problems`. */
async function hold(a: string, dirs: string[], problems: { dir: string; reason: string }[]) {
  const journal = {
    format: 1,
    erase: [],
    uploads: [],
    prefixes: [],
    held: [{ dirs, problems, uploads: [], at: 1 }],
    moving: {},
    trash: [],
    markers: [],
  };
  await Deno.writeTextFile(`${a}/.sluice/erasure.json`, JSON.stringify(journal));
}

/** A cache whose refused run's version V could not be erased, so it is held (as `erasure_refused` leaves it). */
async function heldCache() {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/seed.txt", "seed");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await w.write(a, `${V}/raw`, "the refused run's output");
  await hold(a, [V], [{ dir: V, reason: "the model was written under another lock meanwhile" }]);
  return { w, a };
}

Deno.test("held lists a refused run's held versions (exit 2) and --keep releases them for the next push", async () => {
  const { w, a } = await heldCache();
  const listed = await sluice(["held", "--cache", a]);
  assert.equal(listed.code, 2, listed.err);
  assert.match(
    listed.out,
    new RegExp(`${V}  \\(the model was written under another lock meanwhile\\)`),
  );
  assert.match(listed.out, /sluice held data\/shell\/cmd\/m1\/out\/2 --keep/);
  const pushed = await sluice(["push", V, "--cache", a]);
  assert.equal(pushed.code, 2, "held out of the push");
  assert.match(pushed.err + pushed.out, /sluice held/);
  // The push's warning names the held directory in a command that runs as given.
  assert.match(
    pushed.err,
    /data\/shell\/cmd\/m1\/out\/2 was written by a run refused[^\n]*`sluice held data\/shell\/cmd\/m1\/out\/2 --keep[^`]*`/,
  );
  const kept = await sluice(["held", V, "--keep", "--cache", a]);
  assert.equal(kept.code, 0, kept.err);
  assert.match(kept.out, /Released 1 held version/);
  assert.equal((await sluice(["push", V, "--cache", a])).code, 0);
  const b = w.cache("b");
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  assert.equal(await Deno.readTextFile(`${b}/${V}/raw`), "the refused run's output");
  assert.equal((await sluice(["held", "--cache", a])).code, 0, "none held now");
  await w.cleanup();
});

Deno.test("held --discard erases a held version; a directory not held is refused and nothing changes", async () => {
  const { w, a } = await heldCache();
  const typo = await sluice(["held", "data/shell/cmd/m1/out/3", "--discard", "--cache", a]);
  assert.equal(typo.code, 1, typo.err);
  assert.match(typo.err, /not_found/);
  assert.match(
    typo.err,
    /is not held; nothing was changed\. Held now: data\/shell\/cmd\/m1\/out\/2/,
  );
  assert.equal(await Deno.readTextFile(`${a}/${V}/raw`), "the refused run's output");
  const gone = await sluice(["held", V, "--discard", "--cache", a]);
  assert.equal(gone.code, 0, gone.err);
  await assert.rejects(Deno.lstat(`${a}/${V}/raw`), Deno.errors.NotFound);
  const usage = await sluice(["held", V, "--cache", a]);
  assert.equal(usage.code, 64, "a directory without --keep or --discard is a usage error");
  await w.cleanup();
});

Deno.test("held --json: ok false with its outcome (exit 2) while versions are held, each with its reason", async () => {
  const { a } = await heldCache();
  const listed = await sluice(["held", "--json", "--cache", a]);
  assert.equal(listed.code, 2, listed.err);
  const doc = JSON.parse(listed.out);
  assert.equal(doc.ok, false);
  assert.equal(doc.outcome.code, "versions_held");
  assert.equal(doc.outcome.exitCode, 2);
  assert.deepEqual(doc.held, [{
    dir: V,
    reason: "the model was written under another lock meanwhile",
  }]);
});

Deno.test("held --discard of a run's version and the latest marker its push named: never says the marker's cache copy was erased when it stays", async () => {
  const w = await world();
  const a = w.cache("a");
  const D = "data/shell/cmd/m1/out";
  await w.write(a, `${D}/1/raw`, "v1");
  await w.write(a, `${D}/1/metadata.yaml`, "version: 1\n");
  await w.write(a, `${D}/latest`, "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  // The refused run wrote version 2 and moved the marker to it: both held.
  await w.write(a, `${D}/2/raw`, "the refused run's output");
  await w.write(a, `${D}/latest`, "2");
  await hold(a, [`${D}/2`, `${D}/latest`], []);
  const gone = await sluice(["held", `${D}/2`, "--discard", "--cache", a]);
  assert.equal(gone.code, 0, gone.err);
  await assert.rejects(Deno.lstat(`${a}/${D}/2/raw`), Deno.errors.NotFound);
  const marker = await Deno.readTextFile(`${a}/${D}/latest`).catch(() => null);
  assert.equal(marker, "1", "the marker is reset to the version left, not erased");
  assert.doesNotMatch(
    gone.out,
    /Erased [^:]*latest marker[^:]*: the cache copies/,
    `the marker's cache copy was reset, not erased: ${gone.out}`,
  );
  await w.cleanup();
});

/** A cache whose version V was published by a push, then held (its run refused, its files synced before the flush). */
async function publishedHeldCache() {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, `${V}/raw`, "published output");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await hold(a, [V], [{ dir: V, reason: `it holds ${V}/raw, already synced with the datastore` }]);
  return { w, a };
}

Deno.test("held --discard of a version already published says its published files stay on the datastore, and the next push deletes nothing", async () => {
  const { w, a } = await publishedHeldCache();
  const gone = await sluice(["held", V, "--discard", "--cache", a]);
  assert.equal(gone.code, 0, gone.err);
  assert.match(gone.out, new RegExp(`${V}/raw`), gone.out);
  assert.match(gone.out, /published on the datastore/, gone.out);
  assert.doesNotMatch(gone.out, /Erased 1 held version: the cache copies, and what/, gone.out);
  const pushed = await sluice(["push", "--cache", a]);
  assert.equal(pushed.code, 0, pushed.err);
  const b = w.cache("b");
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  assert.equal(await Deno.readTextFile(`${b}/${V}/raw`), "published output");
  await w.cleanup();
});

Deno.test("held --keep of a version already published says which of its files are published already", async () => {
  const { w, a } = await publishedHeldCache();
  const kept = await sluice(["held", V, "--keep", "--cache", a]);
  assert.equal(kept.code, 0, kept.err);
  assert.match(kept.out, /Released 1 held version/);
  assert.match(kept.out, new RegExp(`${V}/raw[^\\n]*published on the datastore already`), kept.out);
  await w.cleanup();
});

Deno.test("held --keep of a version already published, a file of which the run deleted since: never says nothing is left for a push, whose next push deletes that file", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, `${V}/raw`, "published output");
  await w.write(a, `${V}/metadata.yaml`, "version: 2\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  // The run deleted one of the version's published files: a change of its own.
  await Deno.remove(`${a}/${V}/raw`);
  await hold(a, [V], [{ dir: V, reason: `it holds ${V}/metadata.yaml, already synced` }]);
  const kept = await sluice(["held", V, "--keep", "--cache", a]);
  assert.equal(kept.code, 0, kept.err);
  assert.doesNotMatch(kept.out, /nothing of it is left for a push to publish/, kept.out);
  assert.match(kept.out, new RegExp(`the deletion of ${V}/raw`), kept.out);
  // The version's push (its run's, or one naming it) publishes the run's deletion.
  const pushed = await sluice(["push", V, "--cache", a]);
  assert.equal(pushed.code, 0, pushed.err);
  const b = w.cache("b");
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  await assert.rejects(Deno.lstat(`${b}/${V}/raw`), Deno.errors.NotFound);
  await w.cleanup();
});
