import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { describeProbe, probeFailure, probeWithLatency } from "./probe.ts";
import { AbortedError, UnreachableError } from "../sync/errors.ts";
import { sluice } from "./cli_test_kit.ts";

Deno.test("probe: an endpoint that honours conditional writes", async () => {
  const store = new InMemoryStore();
  const r = await probeWithLatency(store);
  assert.equal(r.create, "honoured");
  assert.equal(r.update, "honoured");
  assert.deepEqual(r.requests.map((q) => [q.op, q.mode, q.outcome]), [
    ["put", "create", "ok"],
    ["put", "create", "already_exists"],
    ["put", "overwrite", "ok"],
    ["put", "update", "precondition_failed"],
    ["delete", undefined, "ok"],
  ]);
  assert.ok(r.maxMs >= r.medianMs);
  assert.equal(store.keys().length, 0, "the probe cleans up");
  assert.match(describeProbe(r).join("\n"), /Conditional writes are honoured/);
});

Deno.test("probe: an endpoint that silently ignores them is named as such", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "ignore";
  const r = await probeWithLatency(store);
  assert.equal(r.create, "ignored");
  assert.equal(r.update, "ignored");
  const text = describeProbe(r).join("\n");
  assert.match(text, /IGNORED/);
  assert.match(text, /silently ignores conditional writes/);
  assert.equal(store.keys().length, 0);
});

Deno.test("probe: an endpoint that refuses them", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "refuse";
  const r = await probeWithLatency(store);
  assert.equal(r.create, "refused");
  assert.equal(r.update, "refused");
  assert.match(describeProbe(r).join("\n"), /REFUSED[\s\S]*check-then-write/);
});

Deno.test("probe: an unreachable endpoint fails with its typed error", async () => {
  const store = new InMemoryStore();
  store.unreachable = true;
  await assert.rejects(probeWithLatency(store), (e: unknown) => {
    assert.equal((e as { code?: string }).code, "unreachable");
    return true;
  });
});

Deno.test("probe: an unreachable endpoint is reported as the probe's, not as a sync's", async () => {
  const url = "s3://probe-bucket/p?endpoint=http://127.0.0.1:9&retries=0&timeout=500";
  const e = probeFailure(new UnreachableError("the put of .sluice/probe/x failed"), url);
  assert.equal((e as UnreachableError).code, "unreachable");
  const message = (e as Error).message;
  assert.doesNotMatch(message, /stay in the cache and dirty|run the sync again/);
  assert.match(message, /no cache was read or changed/);
  assert.ok(message.includes(`\`sluice probe '${url}'\` again`), message);
  const other = new Error("not a transport failure");
  assert.equal(probeFailure(other, url), other);

  const ran = await sluice(["probe", url], {
    env: { AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" },
  });
  assert.equal(ran.code, 69, ran.err);
  assert.match(ran.err, /^error\[unreachable\]: The endpoint could not be reached/);
  assert.doesNotMatch(ran.err, /run the sync again/);
  assert.ok(ran.err.includes(`\`sluice probe '${url}'\` again`), ran.err);
});

Deno.test("probe: a cancelled probe says what it did, not what a sync keeps", () => {
  const url = "s3://probe-bucket/p?endpoint=http://127.0.0.1:9000";
  const e = probeFailure(new AbortedError("The wait"), url) as AbortedError;
  assert.ok(e instanceof AbortedError);
  assert.equal(e.code, "aborted");
  assert.equal(e.exitCode, 130);
  assert.match(e.message, /^The probe was cancelled\. It gave no verdict/);
  assert.doesNotMatch(e.message, /pushed|dirty|sync/);
  assert.ok(e.message.includes(`\`sluice probe '${url}'\` again`), e.message);
});

Deno.test("probe and bucket create with no store URL, given nor in the environment, are usage errors (64) saying how to give one", async () => {
  for (const args of [["probe"], ["bucket", "create"]]) {
    const r = await sluice(args);
    assert.equal(r.code, 64, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, /error\[usage\]: sluice (probe|bucket create) needs a store URL/);
    assert.match(r.err, /SLUICE_STORE/);
    assert.match(r.err, /Nothing was (probed|created)/);
  }
});

Deno.test("probe and bucket create, which take no cache, never tell a bad store URL to be fixed 'as the cache recorded it'", async () => {
  for (const args of [["probe"], ["bucket", "create"]]) {
    const r = await sluice([...args, "s3://Bad_Bucket/team?endpoint=http://127.0.0.1:9"]);
    assert.equal(r.code, 78, args.join(" "));
    assert.match(r.err, /^error\[invalid_config\]: .*"store\.bucket"/);
    assert.doesNotMatch(r.err, /cache/, args.join(" "));
    assert.match(r.err, /fix the store URL and run the command again\./);
  }
});

Deno.test("probe and bucket create --help tell --verbose by what it shows there: they run no gate", async () => {
  for (const args of [["probe"], ["bucket", "create"]]) {
    const help = await sluice([...args, "--help"]);
    assert.equal(help.code, 0);
    assert.doesNotMatch(help.out, /gate note/, args.join(" "));
    assert.match(help.out, /-v, --verbose\s+show every warning/, args.join(" "));
  }
  const push = await sluice(["push", "--help"]);
  assert.match(push.out, /-v, --verbose\s+show every gate note/);
});
