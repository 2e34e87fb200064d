import assert from "node:assert/strict";
import { type ConflictRecord, PULL_SET_ASIDE_REASON } from "../../sync/service/conflicts.ts";
import { SetAsideWatch } from "./set_aside_named.ts";

async function aside(dir: string, name: string, path: string, reason = PULL_SET_ASIDE_REASON) {
  const at = `${dir}/.sluice/set-aside/${name}`;
  await Deno.mkdir(`${at}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
  await Deno.writeTextFile(`${at}/${path}`, `copy ${name}`);
  await Deno.writeTextFile(`${at}/REASON.json`, JSON.stringify({ path, reason, at: 0 }));
  return `.sluice/set-aside/${name}/${path}`;
}

function record(path: string, mine: string, kept: string[] = []): ConflictRecord {
  const side = (location: string) => ({ location, hash: "h", size: 1 });
  return {
    path,
    mine: side(mine),
    theirs: { version: "v1", hash: "t", size: 1 },
    foundBy: "pull",
    at: 0,
    reason: "r",
    ...(kept.length ? { keptAside: kept.map(side) } : {}),
  };
}

Deno.test("chaos: a copy a pull set aside that no open record names is reported (I6), unless its clone resolved the path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const watch = new SetAsideWatch();
    const named = await aside(dir, "a", "notes/named.md");
    const kept = await aside(dir, "b", "notes/kept.md");
    const dropped = await aside(dir, "c", "notes/dropped.md");
    const resolved = await aside(dir, "d", "notes/resolved.md");
    await aside(dir, "e", "notes/other.md", "resolve --theirs: the local copy was replaced");
    await watch.resolving(0, dir, "notes/resolved.md");
    const records = [
      record("notes/named.md", named),
      record("notes/kept.md", "notes/kept.md", [kept]),
    ];
    const found = await watch.check(0, dir, records, -1);
    assert.deepEqual(found.map((v) => v.invariant), ["I6"]);
    assert.ok(found[0].message.includes(dropped), found[0].message);
    assert.ok(!JSON.stringify(found).includes(resolved));
    // Another clone's resolution releases nothing of this one.
    assert.equal((await new SetAsideWatch().check(1, dir, records, -1)).length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
