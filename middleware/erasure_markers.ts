/**
 * The step of a refused run's erasure that acts on one `latest` marker at a
 * time: recomputing it from the version directories left in the cache, and
 * the warning for a local change of it that the recomputation replaced.
 * `erasure.ts` drives it.
 *
 * @module
 */
import { sha256Hex } from "../sync/hash.ts";
import { parentOf } from "../sync/paths.ts";
import type { CacheAccess, StateAccess } from "../sync/context.ts";
import { markerNumber } from "../sync/marker_numbers.ts";
import { isUnder } from "./erasure_attribution.ts";
import type { MarkerOutcome } from "./erasure_journal.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * Recomputes a `latest` marker from the version directories left in the
 * cache, unless it names one of them already (it is then left as it is), or
 * there is none (none is made up). No version left: the marker is removed, cleaned and forgotten (the
 * next pull brings the datastore's). The highest version still unpushed:
 * the marker names it and stays dirty. Otherwise the synced copy is put
 * back where it names a version still here (clean, its record kept; the
 * next pull moves it on as the datastore's marker moved); else the marker
 * names the highest version, is clean, and is forgotten, so that the next
 * pull refreshes it; it never pushes a refused version number.
 *
 * With `unfinishedVersions: "hold"` (the tool writes every version's
 * `metadata.yaml` when it finalizes it), a version whose `raw` is here with
 * no `metadata.yaml` is still being written, or its writer stopped before
 * finalizing it: the marker never names it (its writer names it when it
 * finalizes it), so the highest finished version is taken instead.
 *
 * `discarded`: versions the erasure took out but for their files published
 * on the datastore already (kept in the cache): a marker changed here is
 * never left naming one, nor recomputed to name one.
 */
export async function recomputeLatest(
  cache: CacheAccess,
  state: StateAccess,
  marker: string,
  unfinishedVersions: "push" | "hold" = "push",
  discarded: ReadonlySet<number> = new Set(),
): Promise<MarkerOutcome> {
  const parent = parentOf(marker);
  const versions = new Set<number>();
  const withRaw = new Set<number>();
  const finished = new Set<number>();
  for (const f of await cache.listFiles(parent)) {
    const segs = f.slice(parent.length + 1).split("/");
    if (segs.length >= 2 && /^\d+$/.test(segs[0])) {
      const n = Number(segs[0]);
      versions.add(n);
      if (segs.length === 2 && segs[1] === "raw") withRaw.add(n);
      if (segs.length === 2 && segs[1] === "metadata.yaml") finished.add(n);
    }
  }
  if (unfinishedVersions === "hold") {
    for (const n of withRaw) if (!finished.has(n)) versions.delete(n);
  }
  const dirty = state.dirtyPaths().includes(marker);
  const bytes = await cache.read(marker).catch(() => null);
  const text = bytes === null ? null : new TextDecoder().decode(bytes).trim();
  // A local change of the marker that the recomputation replaces (reported):
  // marked, or not its synced copy (written by hand, with no mark).
  const synced = state.synced(marker);
  const changedHere = bytes !== null &&
    (dirty || !synced || synced.hash !== (await sha256Hex(bytes)));
  // A version erased but for its files published already (`discarded`) is
  // the datastore's: a marker changed here naming it is recomputed, and
  // none is made to name it (the datastore's marker, synced, is left).
  for (const n of changedHere ? discarded : []) versions.delete(n);
  const max = Math.max(-1, ...versions);
  // A marker naming a version still here (one set by hand, e.g. one back,
  // after the refused run) is left as it is: only a marker naming an erased
  // version is recomputed.
  if (text !== null && /^\d+$/.test(text) && versions.has(Number(text))) {
    return { path: marker, version: Number(text), dirty };
  }
  // No marker here (the refused run wrote none): none is made up; the next
  // pull brings the datastore's, if it has one.
  if (text === null) return { path: marker, version: null, dirty };
  const was = changedHere ? { was: text } : {};
  if (max < 0) {
    await cache.remove(marker);
    await state.clean([marker]);
    if (synced) await state.forget([marker]);
    return { path: marker, version: null, dirty: false, ...was };
  }
  const maxDir = `${parent}/${max}`;
  if (state.dirtyPaths().some((p) => isUnder(p, maxDir))) {
    await cache.write(marker, enc(`${max}`));
    await state.markDirty(marker);
    return { path: marker, version: max, dirty: true, ...was };
  }
  // The synced copy, where it names a version still here: put back as it
  // was, its record kept, even below a higher version here (a peer's pulled
  // in, which the datastore's marker did not name when this cache synced
  // it). Forgotten instead, the copy naming that version would meet, at the
  // next pull, the datastore's marker as this cache's own write where that
  // is this cache's (its earlier run's): kept for the push as an own write
  // cut off before its commit, it would be published, naming a version
  // whose files may not all be listed (its writer's push cut off).
  const down = [...versions].sort((x, y) => y - x);
  for (const n of synced ? down : []) {
    for (const t of [`${n}`, `${n}\n`]) {
      if (synced!.hash !== (await sha256Hex(enc(t)))) continue;
      await cache.write(marker, enc(t));
      await state.clean([marker]);
      return { path: marker, version: n, dirty: false, ...was };
    }
  }
  await cache.write(marker, enc(`${max}`));
  await state.clean([marker]);
  if (synced) await state.forget([marker]);
  return { path: marker, version: max, dirty: false, ...was };
}

/**
 * The `latest_reset` warning for a marker changed here that {@link
 * recomputeLatest} reset (`m.was` set): it named version `m.was`, which
 * `because` says is gone from this cache.
 */
export function latestResetWarning(
  m: MarkerOutcome,
  because: string,
): { code: "latest_reset"; message: string; path: string } {
  return {
    code: "latest_reset",
    message: `${m.path} was changed here and named version ${m.was}, ${because}; it ${
      m.version === null
        ? "was removed (no version is left here; the next pull brings the datastore's)"
        : `now names version ${m.version}, left here (the one it named when last synced, where that version is here still; else the highest)`
    }. If you meant another version, set ${m.path} again and push.`,
    path: m.path,
  };
}

/**
 * The `latest` markers under `prefixes` (the models of a refused run's lost
 * locks) that a pull left in conflict while naming a version whose copy here
 * the pull set aside: a peer published that version number meanwhile, the
 * datastore's copy of it is here now, and this cache's own (the run's) waits
 * in the set-aside area. The marker's local change named this cache's copy of
 * the version, which the refusal leaves unpublished: nothing here is left for
 * it to name, and kept in conflict it would hold back the marker of every
 * later run of the model. Each is settled on the datastore's marker: removed
 * here, cleaned, forgotten and its conflict cleared, so that the refusal's
 * refresh (or the next pull) brings the datastore's. A marker whose local
 * copy was set aside itself, or that names a version this cache still holds
 * as its own, is left in conflict. Returns the markers settled, with the
 * version each named.
 */
export async function settleSetAsideMarkers(
  cache: CacheAccess,
  state: StateAccess,
  prefixes: readonly string[],
): Promise<{ path: string; was: number }[]> {
  const conflicts = state.conflicts;
  if (!conflicts || prefixes.length === 0) return [];
  const records = conflicts.list();
  const setAside = (dir: string) =>
    records.some((r) =>
      isUnder(r.path, dir) && r.path !== dir && r.mine !== null && r.mine.location !== r.path
    );
  const settled: { path: string; was: number }[] = [];
  for (const rec of records) {
    const path = rec.path;
    if (!path.endsWith("/latest") || !prefixes.some((p) => isUnder(path, p) && path !== p)) {
      continue;
    }
    if (rec.mine?.location !== path || (rec.keptAside?.length ?? 0) > 0) continue;
    const bytes = await cache.read(path).catch(() => null);
    const n = bytes === null ? undefined : markerNumber(bytes);
    if (n === undefined || !setAside(`${parentOf(path)}/${n}`)) continue;
    await cache.remove(path);
    await state.clean([path]);
    await state.forget([path]);
    await conflicts.clear([path]);
    settled.push({ path, was: n });
  }
  return settled;
}
