import assert from "node:assert/strict";
import { markerBeside, markerHolding, markerNamesHere } from "./version_marker.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A cache holding `files`, read as the helpers read it. */
const cacheOf = (files: Record<string, string>) => ({
  read: (p: string) => Promise.resolve(p in files ? enc(files[p]) : null),
});

Deno.test("markerBeside names the marker beside a version directory and the version's number", () => {
  assert.deepEqual(markerBeside("data/t/m/out/2/raw"), { marker: "data/t/m/out/latest", n: "2" });
  assert.deepEqual(markerBeside("ns/data/t/m/out/10/metadata.yaml"), {
    marker: "ns/data/t/m/out/latest",
    n: "10",
  });
});

Deno.test("markerNamesHere reads the marker trimmed; none, unreadable or too long is null", async () => {
  const long = "9".repeat(65);
  const cache = cacheOf({ "a/latest": "3\n", "b/latest": long });
  assert.equal(await markerNamesHere(cache, "a/latest"), "3");
  assert.equal(await markerNamesHere(cache, "b/latest"), null);
  assert.equal(await markerNamesHere(cache, "c/latest"), null);
  const failing = { read: () => Promise.reject(new Error("denied")) };
  assert.equal(await markerNamesHere(failing, "a/latest"), null);
});

Deno.test("markerHolding: a data version file whose marker here names its version, and nothing else", async () => {
  const D = "data/t/m/out";
  const cache = cacheOf({ [`${D}/latest`]: "2\n" });
  assert.deepEqual(await markerHolding(cache, `${D}/2/raw`), { marker: `${D}/latest`, n: "2" });
  assert.equal(await markerHolding(cache, `${D}/1/raw`), undefined, "another version");
  assert.equal(await markerHolding(cache, "config/2/raw"), undefined, "no data version");
  assert.equal(
    await markerHolding(cache, `${D}/2/raw`, [{ pattern: `${D}/**`, class: "other" }]),
    undefined,
    "classified otherwise by a rule",
  );
});
