/**
 * The chaos checker's own checks, shown to catch what they look for: a
 * local edit lost (I6), a command or a store call that hangs (I4), a file
 * written beside the cache dirs (I5).
 *
 * @module
 */
import assert from "node:assert/strict";
import { sha256HexSync } from "../../sync/hash.ts";
import type { History } from "./history.ts";
import { checkOutside, plantSentinel } from "./invariants.ts";
import { LocalChanges } from "./local_changes.ts";
import { memoryTarget } from "./target.ts";
import { runHistory } from "./workload.ts";
import { describe } from "./chaos_kit.ts";
import type { ObjectStore } from "../../sync/ports.ts";

Deno.test("chaos: an edit whose bytes the store already held (a marker repeating a peer's number) counts as published (I6)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const enc = new TextEncoder();
    const store = new Map([["data/m/d/latest", enc.encode("1")]]);
    const changes = new LocalChanges((k) => Promise.resolve(store.get(k)));
    await changes.record(
      { op: 1, clone: 0, path: "data/m/d/latest", how: "marker" },
      enc.encode("1"),
    );
    await changes.record(
      { op: 2, clone: 0, path: "data/m/d/other", how: "marker" },
      enc.encode("1"),
    );
    // A peer then moved the marker on, and a pull brought its bytes here.
    await Deno.mkdir(`${dir}/data/m/d`, { recursive: true });
    await Deno.writeTextFile(`${dir}/data/m/d/latest`, "2");
    await Deno.writeTextFile(`${dir}/data/m/d/other`, "2");
    const found = await changes.check(0, dir, 3);
    assert.equal(found.length, 1, "only the edit the store never held is lost");
    assert.match(found[0].message, /data\/m\/d\/other \(op #2, marker\) was lost/);
    // Bytes the index names while another writer's object waits uncommitted there count too.
    const named = new LocalChanges(
      (k) => Promise.resolve(k === "data/m/d/latest" ? enc.encode("2") : undefined),
      (k) => Promise.resolve(k === "data/m/d/latest" ? sha256HexSync(enc.encode("1")) : undefined),
    );
    await named.record(
      { op: 1, clone: 0, path: "data/m/d/latest", how: "marker" },
      enc.encode("1"),
    );
    assert.deepEqual(await named.check(0, dir, 3), []);
    // A deletion of a file a peer had already deleted in the store is published too (a
    // file created there again later is that peer's change, and comes back).
    await named.record({ op: 2, clone: 0, path: "data/m/d/other", how: "hand" }, null);
    assert.deepEqual(await named.check(0, dir, 3), []);
    const blindDelete = new LocalChanges();
    await blindDelete.record({ op: 2, clone: 0, path: "data/m/d/other", how: "hand" }, null);
    assert.equal((await blindDelete.check(0, dir, 3)).length, 1);
    // Without a reader (as before), the first is reported too.
    const blind = new LocalChanges();
    await blind.record(
      { op: 1, clone: 0, path: "data/m/d/latest", how: "marker" },
      enc.encode("1"),
    );
    assert.equal((await blind.check(0, dir, 3)).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chaos: a local edit a pull overwrites is reported (I6); a published or set-aside one is not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const changes = new LocalChanges();
    const enc = new TextEncoder();
    const edit = (op: number, path: string) =>
      changes.record({ op, clone: 0, path, how: "hand" }, enc.encode(`edit ${op}`));
    await edit(1, "notes/lost.md");
    await edit(2, "notes/published.md");
    await edit(3, "notes/aside.md");
    await changes.observedPut("notes/published.md", enc.encode("edit 2"));
    await Deno.mkdir(`${dir}/.sluice/set-aside/x/notes`, { recursive: true });
    await Deno.writeTextFile(`${dir}/.sluice/set-aside/x/notes/aside.md`, "edit 3");
    await Deno.mkdir(`${dir}/notes`);
    await Deno.writeTextFile(`${dir}/notes/lost.md`, "a peer's copy");
    const found = await changes.check(0, dir, 7);
    assert.deepEqual(found.map((v) => [v.invariant, v.afterOp]), [["I6", 7]]);
    assert.match(found[0].message, /notes\/lost\.md \(op #1, hand\) was lost/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chaos: a command past its fake-time budget is a hang (I4)", async () => {
  const history: History = {
    seed: 1,
    clones: 2,
    ops: [{ id: 0, kind: "run", clone: 0, model: 0, data: 0, workMs: 45_000 }],
  };
  const r = await runHistory(history, { commandBudgetMs: 10_000 });
  assert.ok(
    r.violations.some((v) => v.invariant === "I4" && /did not end within 10000 ms/.test(v.message)),
    describe([r]),
  );
});

Deno.test("chaos: a store call that never returns is a hang (I4)", async () => {
  const history: History = {
    seed: 1,
    clones: 2,
    ops: [{ id: 0, kind: "run", clone: 0, model: 0, data: 0, workMs: 0 }],
  };
  const r = await runHistory(history, {
    realTimeoutMs: 50,
    target: async (env) => {
      const t = await memoryTarget(env);
      const inner = t.store;
      const store: ObjectStore = {
        endpoint: inner.endpoint,
        get: (key, o) => key === ".datastore.lock" ? new Promise(() => {}) : inner.get(key, o),
        head: (key, o) => inner.head(key, o),
        put: (key, body, mode, o) => inner.put(key, body, mode, o),
        delete: (key, o) => inner.delete(key, o),
        list: (prefix, o) => inner.list(prefix, o),
      };
      return { ...t, store };
    },
  });
  assert.ok(
    r.violations.some((v) => v.invariant === "I4" && /within 50 ms of real time/.test(v.message)),
    describe([r]),
  );
});

Deno.test("chaos: a file written beside the cache dirs is reported (I5)", async () => {
  const root = await Deno.makeTempDir();
  try {
    await plantSentinel(root);
    await Deno.mkdir(`${root}/c0`);
    assert.deepEqual(await checkOutside(root, ["c0"]), []);
    await Deno.writeTextFile(`${root}/c0.tmp`, "x");
    await Deno.writeTextFile(`${root}/outside/other`, "y");
    const found = await checkOutside(root, ["c0"]);
    assert.equal(found.length, 2);
    assert.ok(found.every((v) => v.invariant === "I5"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
