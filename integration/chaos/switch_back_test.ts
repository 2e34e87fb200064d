import assert from "node:assert/strict";
import { checkSwitchBack, uploadedBySwitchBack } from "./switch_back.ts";

Deno.test("I21: Sluice's own files an existing extension would upload are found; what it keeps local, the user's files and another namespace's are not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-chaos-switch-" });
  const put = async (rel: string) => {
    await Deno.mkdir(`${dir}/${rel}`.slice(0, `${dir}/${rel}`.lastIndexOf("/")), {
      recursive: true,
    });
    await Deno.writeTextFile(`${dir}/${rel}`, "x");
  };
  for (
    const rel of [
      ".sluice/dirty.log",
      "notes/a.md.sluice-9f86d0811.tmp",
      "_control/.sluice/manifest.json",
      "_control/.sluice/set-aside/s/notes/a.md",
      "notes/a.md",
      "data/t/m/d/.lock",
      "prod/.namespace.json",
      "prod/.sluice/dirty.log",
    ]
  ) await put(rel);
  assert.deepEqual(uploadedBySwitchBack(dir), [
    ".sluice/dirty.log",
    "notes/a.md.sluice-9f86d0811.tmp",
  ]);
  assert.deepEqual(checkSwitchBack(2, dir).map((v) => v.invariant), ["I21", "I21"]);
  await Deno.remove(dir, { recursive: true });
});
