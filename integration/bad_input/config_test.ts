/**
 * Bad input, config: wrong types are `invalid_config` naming the field. See
 * `sandbox.ts` for the sandbox every test runs in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { ConfigError } from "../../sync/errors.ts";
import { createSyncService } from "../../sync/service/service.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { refused, sandbox } from "./sandbox.ts";

Deno.test("config: wrong types are invalid_config naming the field, before anything is created", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const cacheDir = `${sb.root}/cache/not-yet`;
  const identity = { holder: "a@host", hostname: "host", pid: 1 };
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ["concurrency as a string", { config: { concurrency: "8" } }, "config.concurrency", /got "8"/],
    ["concurrency zero", { config: { concurrency: 0 } }, "config.concurrency", /at least 1/],
    ["concurrency fractional", { config: { concurrency: 1.5 } }, "config.concurrency", /whole/],
    ["concurrency NaN", { config: { concurrency: NaN } }, "config.concurrency", /got/],
    [
      "conditionalWrites unknown",
      { config: { conditionalWrites: "sometimes" } },
      "config.conditionalWrites",
      /one of "auto", "required", "off", got "sometimes"/,
    ],
    ["retry as a number", { config: { retry: 3 } }, "config.retry", /got 3/],
    [
      "retries as a string",
      { config: { retry: { retries: "3" } } },
      "config.retry.retries",
      /got "3"/,
    ],
    [
      "retries negative",
      { config: { retry: { retries: -1 } } },
      "config.retry.retries",
      /0 or more/,
    ],
    [
      "classifierRules not a list",
      { config: { classifierRules: "data/**" } },
      "config.classifierRules",
      /a list/,
    ],
    [
      "a classifier rule with an unknown class",
      { config: { classifierRules: [{ pattern: "x/**", class: "precious" }] } },
      "config.classifierRules[0].class",
      /got "precious"/,
    ],
    ["probeTtlMs as text", { config: { probeTtlMs: "1h" } }, "config.probeTtlMs", /got "1h"/],
    ["config not an object", { config: "fast" }, "config", /an object of settings/],
    ["cacheDir empty", { cacheDir: "" }, "cacheDir", /a directory path, got ""/],
    [
      "identity pid as a string",
      { identity: { ...identity, pid: "1" } },
      "identity.pid",
      /got "1"/,
    ],
    [
      "identity holder empty",
      { identity: { ...identity, holder: "" } },
      "identity.holder",
      /got ""/,
    ],
  ];
  for (const [what, override, field, detail] of cases) {
    const options = {
      cacheDir,
      store,
      identity,
      clock: new FakeClock(),
      conditional: new ConditionalWrites(),
      ...override,
    } as unknown as Parameters<typeof createSluice>[0];
    const err = await refused(
      createSluice(options),
      "invalid_config",
      new RegExp(`Invalid configuration at "${field.replace(/[.[\]]/g, "\\$&")}"`),
      /fix the datastore configuration and run the command again/,
    );
    assert.ok(err instanceof ConfigError, what);
    assert.equal(err.field, field, what);
    assert.match(err.message, detail, what);
    assert.equal(await Deno.lstat(cacheDir).catch(() => null), null, `${what}: nothing created`);
  }
  // `cacheDir` and `store` are checked by createSluice before it builds the lock backend
  // from them, and by createSyncService for its own callers.
  const direct: [Record<string, unknown>, string, RegExp][] = [
    [{ cacheDir: 42 }, "cacheDir", /a directory path, got 42/],
    [{ store: undefined }, "store", /an ObjectStore \(get, head, put, delete, list\)/],
    [{ store: { get: () => null } }, "store", /an ObjectStore/],
  ];
  for (const create of [createSluice, createSyncService]) {
    for (const [override, field, detail] of direct) {
      const options = { cacheDir, store, ...override } as unknown as Parameters<
        typeof createSluice
      >[0];
      const err = await refused(
        create(options),
        "invalid_config",
        new RegExp(`Invalid configuration at "${field}"`),
        /run the command again/,
      );
      assert.match(err.message, detail);
      assert.equal(await Deno.lstat(cacheDir).catch(() => null), null);
    }
  }
  // A partial retry policy is completed from the defaults, not left with holes.
  const svc = await createSluice({
    cacheDir,
    store,
    identity,
    clock: new FakeClock(),
    conditional: new ConditionalWrites(),
    config: {
      retry: { retries: 0 } as { retries: number; minTimeoutMs: number; maxTimeoutMs: number },
    },
  });
  assert.equal(svc.config.retry.retries, 0);
  assert.equal(typeof svc.config.retry.maxTimeoutMs, "number");
  await sb.unchanged();
});
