import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { LOCKFILE_TXN_METADATA } from "../service/pull_lockfile.ts";
import { readWriterId, WRITER_METADATA } from "../transfer/writer_id.ts";
import {
  entryConflictWarning,
  LOCKFILE_ENTRY_CONFLICT,
  putLockfileConditional,
} from "./lockfile_publish.ts";
import type { LockfileService } from "./lockfile_txn.ts";

const PATH = "config/upstream_extensions.json";
const body = (s: string) => new TextEncoder().encode(s);

Deno.test("the transaction's put is conditional, and marks its copy as the transaction's and this cache's", async () => {
  const store = new InMemoryStore();
  const states = new Map<string, unknown>();
  const cache = {
    readState: <T>(name: string) => Promise.resolve((states.get(name) ?? null) as T | null),
    writeState: (name: string, value: unknown) => Promise.resolve(void states.set(name, value)),
  };
  const service = {
    store,
    cache,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    events: { emit: () => true },
  } as unknown as LockfileService;
  const made = await putLockfileConditional(service, PATH, body("{}"), PutModes.create, undefined);
  assert.ok(made);
  const meta = (await store.head(PATH))?.metadata;
  assert.equal(meta?.[LOCKFILE_TXN_METADATA], "txn");
  // Its writer id, made at its first write, as a push's is.
  assert.ok(meta?.[WRITER_METADATA]);
  assert.equal(meta?.[WRITER_METADATA], await readWriterId(cache));
  // A copy changed since it was fetched: no write, null.
  assert.equal(
    await putLockfileConditional(service, PATH, body('{"a":1}'), PutModes.create, undefined),
    null,
  );
  const again = await putLockfileConditional(
    service,
    PATH,
    body('{"a":1}'),
    PutModes.update(made.version),
    undefined,
  );
  assert.ok(again);
  assert.equal(store.peekText(PATH), '{"a":1}');
});

Deno.test("an entry change left out for another checkout's names both values and the command that makes it anyway", () => {
  const w = entryConflictWarning(PATH, {
    name: "@x/a",
    mine: { version: "2" },
    base: { version: "1" },
    theirs: null,
  });
  assert.equal(w.code, LOCKFILE_ENTRY_CONFLICT);
  assert.match(w.message, /from \{"version":"1"\} to no entry/);
  assert.match(w.message, /sluice lockfile add @x\/a '\{"version":"2"\}'/);
});
