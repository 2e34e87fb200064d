import assert from "node:assert/strict";
import { runDemo, withTempRoot } from "./demo.ts";
import { replays } from "./incidents.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("demo: every replay runs on a local-directory store, warnings print whole, the numbers are explained", async () => {
  const lines: string[] = [];
  const prefixes: string[] = [];
  let root = "";
  const failed = await withTempRoot(async (temp, dir) => {
    root = dir;
    const counting = (prefix: string) => {
      prefixes.push(prefix);
      return temp(prefix);
    };
    return await runDemo({ temp: counting, say: (line) => lines.push(line) });
  });
  assert.equal(failed, 0, lines.join("\n"));
  assert.equal(await exists(root), false, "the temporary root was removed");
  // One store for the tour, and a fresh one for each replay with its gate off and on.
  assert.equal(prefixes.filter((p) => p === "store-").length, 1 + 2 * replays.length);
  const warnings = lines.filter((l) => / warning [a-z_]+: /.test(l));
  assert.ok(warnings.some((l) => l.includes("warning refresh_failed: ")), lines.join("\n"));
  for (const w of warnings) {
    assert.equal(w.split("(").length, w.split(")").length, `brackets closed: ${w}`);
    assert.match(w, /[.)`]$/, `ends with a whole sentence: ${w}`);
  }
  assert.ok(
    warnings.some((l) => l.includes("run `sluice lockfile retry` to replay it")),
    "the lockfile_guarded warning is printed whole",
  );
  assert.ok(
    lines.some((l) =>
      l.includes("numbered as in their reports, in the order of the story: 001, 002, 000, 004")
    ),
  );
});

Deno.test("demo: the temporary root is removed on failure and on Ctrl-C", async () => {
  let root = "";
  await assert.rejects(
    withTempRoot(async (temp, dir) => {
      root = dir;
      await temp("store-");
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.equal(await exists(root), false);

  let handler: (() => void) | undefined;
  let exitCode: number | undefined;
  let unlistened = false;
  let rootLeftAtUnlisten = true;
  const hooks = {
    onInterrupt(h: () => void) {
      handler = h;
      return () => {
        unlistened = true;
        try {
          Deno.statSync(root);
        } catch {
          rootLeftAtUnlisten = false;
        }
      };
    },
    exit(code: number) {
      exitCode = code;
    },
  };
  await withTempRoot(async (temp, dir) => {
    root = dir;
    await Deno.writeTextFile(`${await temp("alice-")}/f`, "x");
    handler!();
    assert.equal(exitCode, 130);
    assert.equal(await exists(root), false, "removed at Ctrl-C");
  }, hooks);
  assert.ok(unlistened, "the Ctrl-C handler is removed afterwards");

  // At a normal end, the root goes while the Ctrl-C handler still guards it.
  rootLeftAtUnlisten = true;
  await withTempRoot((_temp, dir) => {
    root = dir;
    return Promise.resolve();
  }, hooks);
  assert.equal(rootLeftAtUnlisten, false, "removed before the handler is removed");
});
