/**
 * The committed bytes of a `latest` marker recovered from the cache: a
 * version number left beside the marker whose bytes (with or without a
 * trailing newline) hash to the entry's hash, and the warning of a put-back
 * that could not be made. Shared by the put-backs of a committed marker
 * (`marker_put_back_committed.ts`, `held_marker_put_back.ts`).
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { parentOf } from "../sync/paths.ts";
import { sha256Hex } from "../sync/hash.ts";
import { isUnder } from "./erasure_attribution.ts";

/**
 * The bytes of `marker` hashing to `hash`, from the version numbers in the
 * cache beside it (none under a directory of `skip`) and in the paths
 * `also` (a push's held deletions of a published version: the datastore
 * keeps its files, as its committed marker names it), or null.
 *
 * @example
 * ```ts
 * import { committedMarkerBytes } from "./marker_committed_bytes.ts";
 * import type { PushContext } from "../sync/context.ts";
 * const find = (ctx: PushContext, h: string) =>
 *   committedMarkerBytes(ctx.cache, "data/t/m/out/latest", h);
 * ```
 */
export async function committedMarkerBytes(
  cache: PushContext["cache"],
  marker: string,
  hash: string,
  skip: readonly string[] = [],
  also: readonly string[] = [],
): Promise<Uint8Array | null> {
  const parent = parentOf(marker);
  const numbers = new Set<string>();
  const here = await cache.listFiles(parent).catch(() => [] as string[]);
  for (const f of [...here, ...also.filter((p) => p.startsWith(`${parent}/`))]) {
    const n = f.slice(parent.length + 1).split("/")[0];
    if (/^[0-9]+$/.test(n) && !skip.some((d) => isUnder(f, d))) numbers.add(n);
  }
  const enc = new TextEncoder();
  for (const n of numbers) {
    for (const t of [n, `${n}\n`]) {
      const bytes = enc.encode(t);
      if (await sha256Hex(bytes) === hash) return bytes;
    }
  }
  return null;
}

/**
 * `committed_marker_unrestored`: this cache's upload of `marker`, written
 * over the committed marker the index names, stays in its place, the
 * committed one not put back (`why`); `next` says what publishes a marker
 * there again.
 *
 * @example
 * ```ts
 * import { warnUnrestored } from "./marker_committed_bytes.ts";
 * import type { PushContext } from "../sync/context.ts";
 * const tell = (ctx: PushContext) =>
 *   warnUnrestored(ctx.events, "data/t/m/out/latest", "its bytes are unknown here", "Push again.");
 * ```
 */
export function warnUnrestored(
  events: PushContext["events"],
  marker: string,
  why: string,
  next: string,
): void {
  events.emit("warning", {
    code: "committed_marker_unrestored",
    message:
      `${marker} on the datastore is this cache's upload of it, written over the committed marker the index names, and the committed one could not be put back (${why}). Until a marker is published there again, readers find none and peers' writes of it wait on that upload. ${next}`,
    path: marker,
  });
}
