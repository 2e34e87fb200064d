import assert from "node:assert/strict";
import { commitStep, MARKER_WITH_REFUSED_DELETION } from "./push_commit_step.ts";
import { planEntry } from "../../packages/testing/mod.ts";

const D = "data/t/m/d";

/** A commit step that records what it writes and deletes; `refuse` are deletions that do not go through. */
function io(refuse: string[] = []) {
  const done: string[] = [];
  const deleted: string[] = [];
  return {
    done,
    io: {
      write: (es: { path: string }[]) =>
        Promise.resolve(void done.push(...es.map((e) => `put ${e.path}`))),
      remove: (es: { path: string }[]) => {
        for (const e of es) {
          done.push(`delete ${e.path}`);
          if (!refuse.includes(e.path)) deleted.push(e.path);
        }
        return Promise.resolve();
      },
      deleted: () => deleted,
    },
  };
}

Deno.test("a marker taken along with a version's deletion is written after the deletions went through", async () => {
  const marker = planEntry(`${D}/latest`, { unmarked: true });
  const other = planEntry("data/t/m/e/latest");
  const del = planEntry(`${D}/3/raw`, { action: "delete" });
  const t = io();
  await commitStep([marker, other], [del], t.io);
  assert.deepEqual(t.done, [
    "put data/t/m/e/latest",
    `delete ${D}/3/raw`,
    `put ${D}/latest`,
  ]);
});

Deno.test("a marker taken along is left out when a deletion under its data directory did not go through", async () => {
  const marker = planEntry(`${D}/latest`, { unmarked: true });
  const gone = planEntry(`${D}/latest`, { action: "delete", unmarked: true });
  const del = planEntry(`${D}/3/raw`, { action: "delete" });
  for (const m of [marker, gone]) {
    const t = io([`${D}/3/raw`]);
    await commitStep(m.action === "put" ? [m] : [], m.action === "delete" ? [del, m] : [del], t.io);
    assert.deepEqual(t.done, [`delete ${D}/3/raw`]);
    assert.equal(m.action, "skip");
    assert.equal(m.reason, MARKER_WITH_REFUSED_DELETION);
  }
});
