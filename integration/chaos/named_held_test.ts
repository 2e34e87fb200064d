import assert from "node:assert/strict";
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import { checkNamedHeld, type HeldClone } from "./named_held.ts";

const PART = "notes/shared-1.md/part-48.md";

async function put(dir: string, path: string) {
  await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
  await Deno.writeTextFile(`${dir}/${path}`, "x");
}

Deno.test("chaos: a file the index names under a shared file's name that a clone lacks is reported (I33), unless its user changed that very path, a conflict is open around it or its own other shape is in the way", async () => {
  const root = await Deno.makeTempDir();
  try {
    const entry: IndexEntry = { v: "v1", h: "", s: 1 };
    const entries = { [PART]: entry, "data/shell/cmd/m0/out/1/raw": entry };
    const clone = (index: number, over: Partial<HeldClone> = {}): HeldClone => ({
      index,
      dir: `${root}/c${index}`,
      conflicts: [],
      blocked: [],
      touched: () => false,
      ...over,
    });
    await put(`${root}/c0`, PART);
    await Deno.mkdir(`${root}/c1/notes`, { recursive: true });
    await put(`${root}/c5`, "notes/shared-1.md");
    const clones = [
      clone(0),
      // Lacks it, with none of the reasons: the one violation.
      clone(1),
      // Its user deleted that very path.
      clone(2, { touched: (p) => p === PART }),
      // A conflict open at the file whose name the directory took.
      clone(3, { conflicts: ["notes/shared-1.md"] }),
      // Left out by its final pull as blocked.
      clone(4, { blocked: [PART] }),
      // A file of that name of its own in the way.
      clone(5),
    ];
    const found = await checkNamedHeld(entries, clones, () => false);
    assert.deepEqual(found.map((v) => v.invariant), ["I33"]);
    assert.match(found[0].message, /names notes\/shared-1\.md\/part-48\.md, which clone c1 does/);
    // A deletion of the file whose name the directory took is no deletion of the files under it.
    const parent = await checkNamedHeld(
      entries,
      [clone(1, { touched: (p) => p === "notes/shared-1.md" })],
      () => false,
    );
    assert.equal(parent.length, 1);
    assert.deepEqual(await checkNamedHeld(entries, clones, (p) => p === PART), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
