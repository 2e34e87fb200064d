/**
 * The delete's strategies, over a recording client and a runner that makes
 * one attempt (the store's retries are tested in `store_test.ts`).
 */
import assert from "node:assert/strict";
import type { S3Client } from "@aws-sdk/client-s3";
import { NotImplementedError, PreconditionFailedError } from "../../sync/errors.ts";
import type { ObjectInfo } from "../../sync/ports.ts";
import type { ConditionalDeleteStrategy } from "./client.ts";
import { type DeleteDeps, deleteObject } from "./delete.ts";

function deps(
  strategy: ConditionalDeleteStrategy,
  held: ObjectInfo | null,
  refuseIfMatch = false,
) {
  const sent: { key: string; ifMatch?: string }[] = [];
  const client = {
    send(cmd: { input: { Key: string; IfMatch?: string } }) {
      sent.push({ key: cmd.input.Key, ifMatch: cmd.input.IfMatch });
      if (refuseIfMatch && cmd.input.IfMatch) {
        return Promise.reject(new NotImplementedError(cmd.input.Key, "If-Match refused"));
      }
      return Promise.resolve({});
    },
  } as unknown as S3Client;
  const d: DeleteDeps = {
    client,
    bucket: "b",
    strategy,
    run: (_ctx, _signal, fn) => fn(new AbortController().signal, () => {}),
    head: () => Promise.resolve(held),
  };
  return { d, sent };
}

const info = (version: string): ObjectInfo => ({ key: "k", version, size: 1, lastModified: 0 });

Deno.test("s3 delete: a plain delete sends no condition", async () => {
  const { d, sent } = deps("verify", null);
  await deleteObject(d, "k", "p/k", {});
  assert.deepEqual(sent, [{ key: "p/k", ifMatch: undefined }]);
});

Deno.test("s3 delete: verify reads the version first; another version or none fails, and nothing is sent", async () => {
  for (const held of [info("v2"), null]) {
    const { d, sent } = deps("verify", held);
    await assert.rejects(deleteObject(d, "k", "p/k", { ifVersion: "v1" }), PreconditionFailedError);
    assert.deepEqual(sent, []);
  }
  const { d, sent } = deps("verify", info("v1"));
  await deleteObject(d, "k", "p/k", { ifVersion: "v1" });
  assert.deepEqual(sent, [{ key: "p/k", ifMatch: '"v1"' }]);
});

Deno.test("s3 delete: verify falls back to a plain delete where If-Match is refused; emulate never sends it", async () => {
  const refused = deps("verify", info("v1"), true);
  await deleteObject(refused.d, "k", "p/k", { ifVersion: "v1" });
  assert.deepEqual(refused.sent.map((s) => s.ifMatch), ['"v1"', undefined]);
  const emulated = deps("emulate", info("v1"));
  await deleteObject(emulated.d, "k", "p/k", { ifVersion: "v1" });
  assert.deepEqual(emulated.sent, [{ key: "p/k", ifMatch: undefined }]);
});

Deno.test("s3 delete: native trusts the header, and a refusal of it is an error", async () => {
  const { d, sent } = deps("native", null, true);
  await assert.rejects(deleteObject(d, "k", "p/k", { ifVersion: "v1" }), NotImplementedError);
  assert.deepEqual(sent, [{ key: "p/k", ifMatch: '"v1"' }]);
});
