/**
 * Putting back an object an index entry names that is gone from the store
 * (a same-output peer's upload, deleted by its writer's erasure as a commit
 * named it), from a local copy of the same bytes, and naming the new object
 * in its place. Used by the erasure (`middleware/erasure_steps.ts`) and by a
 * commit that finds such an object gone after its index write
 * (`sync/service/push_commit.ts`).
 *
 * @module
 */
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import { type ObjectStore, PutModes } from "../ports.ts";
import type { RetryPolicy } from "../retry.ts";
import { type HeldObject, type IndexEntry, readIndexAround, updateIndex } from "./remote_index.ts";

/** What {@link putBackAndName} did. */
export type PutBack =
  /** The entry names the object put back (or found put back already) now. */
  | { readonly kind: "named"; readonly version: string }
  /** A commit since removed or replaced the entry: it stands (`theirs`: what the store holds). */
  | { readonly kind: "overtaken"; readonly theirs: HeldObject | null }
  /** Another writer's object with other bytes holds the path: its own commit names it. */
  | { readonly kind: "other" }
  /** What refused the create was gone again before it could be read: not known. */
  | { readonly kind: "vanished" };

/**
 * Creates `path` with `bytes` (the caller checked they are the bytes
 * `named` records) only where nothing is; where something is, takes it when
 * it has the same bytes (an earlier put-back). Then names that object in
 * place of `named.v`, only while the entry still names it: a deletion or a
 * write of the path committed since stands, and an object this call created
 * is deleted again (best effort). Errors of the store are thrown; a create
 * that failed is looked at first, and taken as put back when the store
 * holds these bytes (it landed, its answer lost).
 * `opts.placed` is told the object's version between the two.
 */
export async function putBackAndName(
  store: ObjectStore,
  path: string,
  bytes: Uint8Array,
  named: Pick<IndexEntry, "v" | "h">,
  opts: PutBackOptions,
): Promise<PutBack> {
  const { signal } = opts;
  let version: string;
  let created = true;
  try {
    const put = { signal, ...(opts.metadata ? { metadata: opts.metadata } : {}) };
    version = (await store.put(path, bytes, PutModes.create, put)).version;
  } catch (e) {
    const refused = e instanceof AlreadyExistsError || e instanceof PreconditionFailedError;
    if (!refused && signal?.aborted) throw e;
    // Not refused: the create may have landed with its answer lost (a
    // timeout), so the object is looked at as for a refusal; left unnamed,
    // its version known nowhere, the index would name the one it replaced
    // for good. Nothing there, other bytes, or a look that fails too: the
    // create's own failure is thrown.
    const there = await store.get(path, { signal }).catch((err) => {
      if (err instanceof NotFoundError) return null;
      throw refused ? err : e;
    });
    if (!there) {
      if (refused) return { kind: "vanished" };
      throw e;
    }
    if (named.h !== "" && await sha256Hex(there.body) !== named.h) {
      if (refused) return { kind: "other" };
      throw e;
    }
    version = there.version;
    created = false;
  }
  return await nameInPlace(store, path, version, bytes.length, named, created, opts);
}

/**
 * Replaces this writer's object `upload` at `path` with `bytes` (the bytes
 * `named` records; the caller checked them) by a write conditional on that
 * version, so that the path holds an object throughout (an old client's
 * pull that found it empty would drop its entry from the index), then names
 * the new object in place of `named.v` as {@link putBackAndName} does, only
 * while the entry still names it (overtaken, the object is deleted again,
 * best effort). Null when `upload` was no longer there, or the index names
 * another version than `named.v` right before the write: nothing changed
 * (an entry gone, a deletion committed, goes on as overtaken). (A peer
 * whose marker write met the upload's very bytes takes them as written and
 * commits them, naming `upload`: the write, conditional on that version
 * alone, would land over that peer's published object, and its naming,
 * the store holding it, would stand over that commit, the peer's change
 * lost without a conflict. The look leaves such a commit the window of
 * the write.) A write whose answer was lost is taken as landed when the
 * store holds these bytes (and that object left in place, should it not
 * be named); otherwise its failure is thrown.
 */
export async function replaceAndName(
  store: ObjectStore,
  path: string,
  upload: string,
  bytes: Uint8Array,
  named: Pick<IndexEntry, "v" | "h">,
  opts: PutBackOptions,
): Promise<PutBack | null> {
  const { signal } = opts;
  // One look at the shards that can name the path (not the whole index).
  const now = (await readIndexAround(store, path, opts.retry, signal, opts.concurrency))[path];
  if (now !== undefined && now.v !== named.v) return null;
  let version: string;
  let written = true;
  try {
    const put = { signal, ...(opts.metadata ? { metadata: opts.metadata } : {}) };
    version = (await store.put(path, bytes, PutModes.update(upload), put)).version;
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof NotFoundError) return null;
    if (signal?.aborted) throw e;
    const there = await store.get(path, { signal }).catch(() => null);
    if (!there || there.version === upload || await sha256Hex(there.body) !== named.h) throw e;
    // Taken as landed, as putBackAndName takes a copy found put back: never
    // deleted again, should it not be named.
    version = there.version;
    written = false;
  }
  return await nameInPlace(store, path, version, bytes.length, named, written, opts);
}

/**
 * Names `version` of `path` (`size` bytes), an object put back earlier
 * whose naming never came (its writer's process died before that index
 * write), in place of `named.v`, only while the entry still names it, as
 * {@link putBackAndName} does; overtaken, the object is left in place (it
 * may be what a later commit meets).
 */
export async function nameLeftPutBack(
  store: ObjectStore,
  path: string,
  version: string,
  size: number,
  named: Pick<IndexEntry, "v" | "h">,
  opts: PutBackOptions,
): Promise<PutBack> {
  return await nameInPlace(store, path, version, size, named, false, opts);
}

/** The options of {@link putBackAndName} and {@link replaceAndName}. */
export interface PutBackOptions {
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
  readonly concurrency?: number;
  readonly now?: () => number;
  readonly metadata?: Readonly<Record<string, string>>;
  /**
   * Told the version of the object at the path (created, or found put back
   * already) before the index write naming it: a caller that records it
   * first leaves a trace a later pull or push can name it by, should the
   * process die before that write.
   */
  readonly placed?: (version: string) => Promise<void>;
}

/**
 * Names `version` of `path` (`size` bytes) in place of `named.v`, only
 * while the entry still names it; overtaken, an object of this call's
 * (`created`) is deleted again, best effort.
 */
async function nameInPlace(
  store: ObjectStore,
  path: string,
  version: string,
  size: number,
  named: Pick<IndexEntry, "v" | "h">,
  created: boolean,
  opts: PutBackOptions,
): Promise<PutBack> {
  const { signal } = opts;
  await opts.placed?.(version);
  let overtaken: { theirs: HeldObject | null } | undefined;
  await updateIndex(
    store,
    {
      set: { [path]: { v: version, h: named.h, s: size } },
      remove: [],
      base: { [path]: named.v },
      baseGone: [path],
    },
    opts.retry,
    signal,
    undefined,
    opts.concurrency,
    opts.now,
    (_base, _complete, foreign) => {
      overtaken = foreign.has(path) ? { theirs: foreign.get(path) ?? null } : undefined;
    },
  );
  if (!overtaken) return { kind: "named", version };
  // Its own object, named by no one: not left to hold the path.
  if (created) await store.delete(path, { ifVersion: version, signal }).catch(() => {});
  return { kind: "overtaken", theirs: overtaken.theirs };
}
