/**
 * `pull --adopt-uncommitted`: the way out for a cache that waits on another
 * writer's push that will never complete. Such a push (killed, its machine
 * lost) replaced an object the index names before it could commit: a
 * bucket without object versions keeps only the new bytes, the index still
 * names the old version, and every pull skips the path
 * (`pull_skipped_uncommitted`), a fresh clone included, which has no copy at
 * all. Told that the writer is gone for good, the pull publishes the
 * object the store holds in the index as that writer's change (nothing is
 * written over it: see `adopt.ts`), then fetches it as any committed file.
 * A path named that the pull met as a conflict instead (a copy changed
 * here, whose conflict may name such an object as theirs) is adopted the
 * same way where the store holds an object the index does not name; its
 * conflict then names a committed change, which `resolve --theirs` takes.
 *
 * A data version file is never adopted this way: a data version is never
 * published from a run that did not finish publishing it (its run may have
 * been refused). The managed lockfile is published only by its transaction,
 * and an index file never. Those stay skipped, with the reason.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import type { ClassifierRule } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import { classifyPath } from "../path_class.ts";
import { type Adoption, adoptStrandedMany, type Stranded } from "../transfer/adopt.ts";
import { eachLimit, getOrNull } from "../transfer/index_io.ts";
import { sha256Hex } from "../hash.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { ADOPTED_UNCOMMITTED, adoptedMessage } from "./conflicts.ts";
import { recordVanished } from "./vanished_record.ts";
import type { PullResult } from "./pull_result.ts";

/** What a pull's adoption did with each path it was asked to adopt. */
export interface PullAdoption {
  /** Published in the index as their writer's change (or committed meanwhile): to fetch. */
  readonly adopted: string[];
  /** Left as they were, with why. */
  readonly refused: { readonly path: string; readonly why: string }[];
}

/** What {@link adoptForPull} needs. */
export interface PullAdoptDeps {
  readonly store: ObjectStore;
  readonly config: {
    readonly retry: RetryPolicy;
    readonly concurrency: number;
    readonly classifierRules: readonly ClassifierRule[];
  };
  readonly events: SluiceEmitter;
  readonly signal?: AbortSignal;
  readonly now: () => number;
}

/** True when `path` is `named`, or under it (a directory). */
export function namedBy(path: string, named: readonly string[]): boolean {
  return named.some((n) => {
    const d = n.replace(/\/+$/, "");
    return path === d || path.startsWith(`${d}/`);
  });
}

/** Why a path of class `cls` is never adopted by a pull; undefined when it may be. */
function neverAdopted(cls: string): string | undefined {
  if (cls === "data-version") {
    return "a data version another writer uploaded and never committed is never published as its writer's (its run never finished publishing it); it stays skipped until that writer pushes again, or is deleted from the datastore";
  }
  if (cls === "managed-lockfile") {
    return "the managed lockfile is published only by its transaction (`sluice lockfile`)";
  }
  if (cls === "index" || cls === "internal") return "an index file is never adopted";
  return undefined;
}

/**
 * Adopts the objects at `paths` (each skipped by a pull as uncommitted):
 * publishes them in the index as their writers' changes, each where the
 * index still names the version it named, in one commit (a crashed push's
 * thousands of files read and write the index a few times, not once per
 * file), and says so for each (`adopted_uncommitted`).
 *
 * @example
 * ```ts
 * import { adoptForPull } from "./pull_adopt.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * import { createEmitter } from "../events.ts";
 * const store = new InMemoryStore();
 * const config = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 }, concurrency: 1, classifierRules: [] };
 * const r = await adoptForPull({ store, config, events: createEmitter(), now: Date.now }, []);
 * console.log(r.adopted); // []
 * ```
 */
export async function adoptForPull(
  deps: PullAdoptDeps,
  paths: readonly string[],
  /**
   * Of `paths`, those the pull left in conflict instead of skipping them
   * (see {@link adoptAndPullAgain}): adopted where the store holds an object
   * the index does not name, and otherwise passed over, never refused.
   */
  inConflict: ReadonlySet<string> = new Set(),
): Promise<PullAdoption> {
  const out: PullAdoption = { adopted: [], refused: [] };
  if (paths.length === 0) return out;
  const { store, config, signal } = deps;
  const call = { retry: config.retry, signal, concurrency: config.concurrency };
  // Each path's outcome, told in the order of `paths`.
  const done = new Map<string, Adoption | "committed">();
  const found = new Map<string, { version: string; writer?: string }>();
  const stranded: Stranded[] = [];
  const index = await readIndex(store, config.retry, signal, config.concurrency);
  await eachLimit(paths, config.concurrency, async (path) => {
    const cls = classifyPath(path, config.classifierRules);
    const never = neverAdopted(cls);
    if (never) return void done.set(path, { adopted: false, why: never });
    const entry = index?.entries[path];
    if (!entry) {
      return void done.set(path, { adopted: false, why: "the index names nothing there now" });
    }
    const got = await getOrNull(store, path, call);
    if (!got) {
      return void done.set(path, {
        adopted: false,
        why: "the datastore holds no object there now",
      });
    }
    // Committed meanwhile: fetched as any other.
    if (got.version === entry.v) return void done.set(path, "committed");
    found.set(path, { version: got.version, writer: got.metadata?.[WRITER_METADATA] });
    stranded.push({
      path,
      object: {
        version: got.version,
        size: got.body.length,
        hash: await sha256Hex(got.body),
        // A marker's bytes name the version it points at (see `adopt.ts`).
        ...(cls === "latest-marker" ? { body: got.body } : {}),
      },
      base: entry.v,
      pathClass: cls,
    });
  });
  const adoptions = await adoptStrandedMany(store, stranded, {
    ...call,
    clock: deps.now,
    recordLost: (p, e) => recordVanished(store, [[p, e]], deps.now(), config.retry, signal),
  });
  for (const [path, a] of adoptions) done.set(path, a);
  for (const path of paths) {
    const a = done.get(path)!;
    if (inConflict.has(path) && (a === "committed" || !a.adopted)) continue;
    if (a === "committed") {
      out.adopted.push(path);
    } else if (!a.adopted) {
      out.refused.push({ path, why: a.why });
    } else {
      out.adopted.push(path);
      const f = found.get(path)!;
      deps.events.emit("warning", {
        code: ADOPTED_UNCOMMITTED,
        message: adoptedMessage(path, f.version, f.writer),
        path,
      });
    }
  }
  return out;
}

/**
 * The paths `pulled` skipped as uncommitted that `named` names (files or
 * directories), adopted ({@link adoptForPull}) and pulled again with
 * `pullAgain`; the two pulls' results as one, with what was adopted and
 * taken (`adopted`) and what was not, with why (`notAdopted`).
 */
export async function adoptAndPullAgain(
  deps: PullAdoptDeps,
  pulled: PullResult,
  named: readonly string[],
  pullAgain: (paths: readonly string[]) => Promise<PullResult>,
): Promise<PullResult> {
  // A path in conflict here is met as one, never skipped as uncommitted,
  // though theirs may be an upload no index names (its writer gone for
  // good, which `resolve --theirs` cannot take): adopted too, its conflict
  // then names a committed change, which `--theirs` takes.
  const uncommitted = new Set(pulled.uncommitted);
  const inConflict = new Set(
    pulled.conflicts.filter((p) => namedBy(p, named) && !uncommitted.has(p)),
  );
  const adoption = await adoptForPull(
    deps,
    [...pulled.uncommitted.filter((p) => namedBy(p, named)), ...inConflict],
    inConflict,
  );
  const again = adoption.adopted.length > 0 ? await pullAgain(adoption.adopted) : undefined;
  const took = new Set([
    ...(again?.fetched ?? []),
    ...[...inConflict].filter((p) => again?.conflicts.includes(p)),
  ]);
  const merged = (a: readonly string[] = [], b: readonly string[] = []) => [
    ...new Set([...a, ...b]),
  ];
  return {
    ...pulled,
    fetched: merged(pulled.fetched, again?.fetched),
    conflicts: merged(pulled.conflicts, again?.conflicts),
    setAside: merged(pulled.setAside, again?.setAside),
    uncommitted: merged(pulled.uncommitted.filter((p) => !took.has(p)), again?.uncommitted),
    ...(pulled.uncommittedClass || again?.uncommittedClass
      ? { uncommittedClass: { ...pulled.uncommittedClass, ...again?.uncommittedClass } }
      : {}),
    adopted: adoption.adopted.filter((p) => took.has(p)),
    notAdopted: adoption.refused,
    unchanged: pulled.unchanged && !again,
    bytes: pulled.bytes + (again?.bytes ?? 0),
  };
}
