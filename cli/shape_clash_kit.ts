/**
 * Setups of the command line's tests of a path whose shape differs between
 * two caches: a synced file `foo` one cache replaced by a directory of its
 * name, and the conflict a peer's edit of it meets.
 *
 * @module
 */
import assert from "node:assert/strict";
import { sluice, type World } from "./cli_test_kit.ts";

/** Caches `a` and `b` over one store, both having synced `path` as `text` (then `a` may reshape it). */
export async function bothSynced(
  w: World,
  path: string,
  text: string,
): Promise<{ a: string; b: string }> {
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, path, text);
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  return { a, b };
}

/** `a` replaces the synced file `foo` by a directory of its name holding `foo/x`. */
export async function fooToDirectory(w: World, a: string): Promise<void> {
  await Deno.remove(`${a}/foo`);
  await w.write(a, "foo/x", "a file under a directory of its name");
}

/**
 * Both caches synced `foo`; `a` replaced it by a directory of its name, `b`
 * pushed an edit of it, and `a`'s push of `foo` met that edit: a conflict
 * in `a`.
 */
export async function fooConflict(w: World): Promise<{ a: string; b: string }> {
  const { a, b } = await bothSynced(w, "foo", "v1");
  await fooToDirectory(w, a);
  await w.write(b, "foo", "v2 from b");
  assert.equal((await sluice(["push", "--cache", b])).code, 0);
  assert.equal((await sluice(["push", "foo", "--cache", a])).code, 3, "a conflict");
  return { a, b };
}
