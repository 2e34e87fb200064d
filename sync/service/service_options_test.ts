import assert from "node:assert/strict";
import { DEFAULT_CONFIG, validateSyncServiceOptions } from "./service_options.ts";
import type { SyncServiceOptions } from "./service_options.ts";
import { ConfigError } from "../errors.ts";
import { DEFAULT_RETRY } from "../retry.ts";
import { DEFAULT_STREAM_THRESHOLD } from "../transfer/body.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";

/** Options of unknown shape, as JavaScript callers and JSON configs pass them. */
const loose = (o: Record<string, unknown>) => o as unknown as SyncServiceOptions;

/** The ConfigError `options` are refused with. */
function refused(options: SyncServiceOptions): ConfigError {
  try {
    validateSyncServiceOptions(options);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e;
  }
  assert.fail(`accepted ${JSON.stringify(options)}`);
}

Deno.test("the default configuration", () => {
  assert.deepEqual(DEFAULT_CONFIG, {
    concurrency: 32,
    retry: DEFAULT_RETRY,
    conditionalWrites: "auto",
    classifierRules: [],
    probeTtlMs: 24 * 3600_000,
    streamThresholdBytes: DEFAULT_STREAM_THRESHOLD,
    firstIndexAtUploads: 200,
    unfinishedVersions: "push",
  });
});

Deno.test("valid options pass, with or without identity and config", () => {
  const store = new InMemoryStore();
  validateSyncServiceOptions({ cacheDir: "/tmp/c", store });
  validateSyncServiceOptions({
    cacheDir: "/tmp/c",
    store,
    identity: { holder: "me@h", hostname: "h", pid: 1 },
    config: { concurrency: 4, retry: { ...DEFAULT_RETRY, retries: 0 }, classifierRules: [] },
  });
});

Deno.test("each bad field is refused by its path, saying what is expected and what was given", () => {
  const store = new InMemoryStore();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ store }, "cacheDir", /a directory path, got nothing/],
    [{ cacheDir: "", store }, "cacheDir", /a directory path, got ""/],
    [{ cacheDir: "/c" }, "store", /an ObjectStore \(get, head, put, delete, list\)/],
    [{ cacheDir: "/c", store: { get() {} } }, "store", /an ObjectStore/],
    [
      { cacheDir: "/c", store, identity: { hostname: "h", pid: 1 } },
      "identity.holder",
      /user@host/,
    ],
    [
      { cacheDir: "/c", store, identity: { holder: "a@h", pid: 1 } },
      "identity.hostname",
      /host name/,
    ],
    [
      { cacheDir: "/c", store, identity: { holder: "a@h", hostname: "h", pid: 1.5 } },
      "identity.pid",
      /whole number\), got 1\.5/,
    ],
    [{ cacheDir: "/c", store, config: [] }, "config", /an object of settings, got \[\]/],
    [{ cacheDir: "/c", store, config: { concurrency: 0 } }, "config.concurrency", /got 0/],
    [
      { cacheDir: "/c", store, config: { concurrancy: 8 } },
      "config.concurrancy",
      /no such setting \(unknown key "concurrancy"; did you mean "concurrency"\?\), got 8/,
    ],
    [
      { cacheDir: "/c", store, config: { retry: { retries: -1 } } },
      "config.retry.retries",
      /got -1/,
    ],
    [
      { cacheDir: "/c", store, config: { classifierRules: [{ pattern: "x", class: "bad" }] } },
      "config.classifierRules[0].class",
      /got "bad"/,
    ],
  ];
  for (const [options, field, message] of cases) {
    const e = refused(loose(options));
    assert.equal(e.field, field, JSON.stringify(options));
    assert.match(e.message, message, field);
    assert.match(e.message, /Nothing was changed/);
  }
});
