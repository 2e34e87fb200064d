/**
 * The record of files the datastore lost: `_control/.sluice/vanished.json`
 * in the bucket (an earlier release's `.sluice/vanished.json` is read where
 * there is none, and removed once its content is written there). A pull that removes index entries naming objects the store no
 * longer holds (`dangling_entries.ts`) writes their versions here first.
 * Such an object went outside Sluice (another tool, a lifecycle rule, a
 * hand), and a clone that holds a synced copy (of that version or an older
 * one) may hold the last bytes of the path: its pull keeps that copy, as a
 * conflict with the deletion, where it would remove the file of a peer's
 * deletion (`pull_removals.ts`). A resolution decides: `--mine` publishes
 * the copy again, `--theirs` takes the deletion (the copy is set aside under
 * `.sluice/set-aside/`, as any copy `--theirs` replaces).
 *
 * A resolution that publishes such a copy again drops its record, and so
 * does a push that deletes the path (before its index commit). A record
 * that outlives a republication made otherwise (the same bytes have the
 * same ETag on S3) can at worst make a later loss of that path's entry a
 * conflict at a clone holding it, never a removal it did not ask for.
 * Records are never dropped by age: clocks differ between clones. A record
 * that cannot be read whole (another tool or a newer format wrote it) tells
 * a pull nothing: it keeps every copy whose entry was removed, as a conflict
 * ({@link UNREADABLE_RECORD_REASON}). Such a record is never written over
 * (`lost_record_unreadable`; a pull then removes no entry naming nothing):
 * its owner restores it, or deletes it once every clone has pulled.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import { type PutMode, PutModes } from "../ports.ts";
import {
  AlreadyExistsError,
  NotImplementedError,
  PreconditionFailedError,
  SluiceError,
} from "../errors.ts";
import { BUCKET_RECORDS_DIR, type IndexEntry } from "../transfer/bucket_layout.ts";
import { getOrNull } from "../transfer/index_io.ts";
import { type RetryPolicy, withRetry } from "../retry.ts";

/** The record's key in the bucket (internal to Sluice: never pulled, indexed or pushed). */
export const VANISHED_KEY = `${BUCKET_RECORDS_DIR}/vanished.json`;

/** Where an earlier release kept the record (a key other clients' listings took for a file). */
export const LEGACY_VANISHED_KEY = ".sluice/vanished.json";

/**
 * Why a pull kept a synced file whose entry was removed while the record
 * could not be read: a peer's deletion cannot be told from a loss then.
 */
export const UNREADABLE_RECORD_REASON =
  `its index entry was removed and its object is gone, but the record of files the datastore lost (${VANISHED_KEY}) cannot be read, so this pull cannot tell a peer's deletion from a loss: the copy synced here was kept; resolve --theirs to take the deletion, --mine to publish it again (and see lost_record_unreadable in the README to repair the record)`;

/** Why a pull kept a synced file whose entry was removed as naming a lost object. */
export const LOST_REASON =
  `its object is gone from the store and its index entry was removed as naming nothing (recorded in ${VANISHED_KEY}): deleted outside Sluice, or by a peer's deletion that crossed this cache's commit of it; this copy, the one synced here, may be the last: resolve --mine to publish it again, --theirs to delete it here`;

/** One lost file: the entry's version and hash, and when its entry was removed. */
export interface LostFile {
  readonly v: string;
  readonly h: string;
  readonly at: number;
}

/** Lost files by path (a map: a path may be any name, `__proto__` included). */
export type LostFiles = ReadonlyMap<string, LostFile>;

/** Attempts at writing the record while other writers replace it. */
const ATTEMPTS = 8;

/** The format this code reads and writes. */
const FORMAT = 1;

/**
 * The record's files; null when it cannot be read whole (not JSON, another
 * format, no `paths` object, or an entry that is not one): a record read in
 * part could leave out a path it names, whose holders would then remove it.
 */
function parse(bytes: Uint8Array): Map<string, LostFile> | null {
  const out = new Map<string, LostFile>();
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  const record = raw as { format?: unknown; paths?: unknown } | null;
  if (record?.format !== FORMAT) return null;
  const paths = record.paths;
  if (typeof paths !== "object" || paths === null || Array.isArray(paths)) return null;
  for (const [p, r] of Object.entries(paths as Record<string, Partial<LostFile>>)) {
    if (typeof r?.v !== "string" || typeof r.h !== "string" || !Number.isFinite(r.at)) {
      return null;
    }
    out.set(p, { v: r.v, h: r.h, at: r.at as number });
  }
  return out;
}

/** Why the record is not written over when it cannot be read. */
function unreadableError(key: string): SluiceError {
  return new SluiceError(
    "lost_record_unreadable",
    `The record of files the datastore lost (${key} in the bucket) cannot be read (not JSON of format ${FORMAT}: another tool, or a newer Sluice, wrote it), so it was not written over: what it names would be forgotten, and a clone holding the last copy of such a file would remove it. Nothing was recorded and no index entry was removed. Meanwhile every pull keeps each synced copy whose entry was removed, as a conflict. Restore the object from the bucket's versioning or a backup; or, once every clone has pulled since it became unreadable (each copy at risk is then held by an open conflict), delete it.`,
  );
}

async function current(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<
  { files: Map<string, LostFile> | null; version: string | null; legacy?: string; bad?: string }
> {
  const got = await getOrNull(store, VANISHED_KEY, { retry, signal });
  // An earlier release may still record losses at its key (during an
  // upgrade): read beside the record, and moved with its next write.
  const old = await getOrNull(store, LEGACY_VANISHED_KEY, { retry, signal });
  if (!got) {
    return old
      ? { files: parse(old.body), version: null, legacy: old.version }
      : { files: new Map(), version: null };
  }
  const files = parse(got.body);
  if (!old) return { files, version: got.version };
  const earlier = parse(old.body);
  if (files === null || earlier === null) {
    const bad = files === null ? VANISHED_KEY : LEGACY_VANISHED_KEY;
    return { files: null, version: got.version, legacy: old.version, bad };
  }
  for (const [p, f] of earlier) if (!files.has(p)) files.set(p, f);
  return { files, version: got.version, legacy: old.version };
}

/**
 * The lost files recorded (none when there is no record); null when the
 * record cannot be read (another tool wrote something else there): a pull
 * then keeps every copy whose entry was removed. A failed read throws.
 */
export async function readVanished(
  store: ObjectStore,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<LostFiles | null> {
  return (await current(store, retry, signal)).files;
}

/**
 * Adds `lost` to the record (compare-and-swap, read again when another
 * writer replaced it meanwhile). Throws when it could not be written.
 */
export async function recordVanished(
  store: ObjectStore,
  lost: readonly (readonly [string, IndexEntry])[],
  now: number,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<void> {
  await rewrite(store, retry, signal, (files) => {
    for (const [p, e] of lost) files.set(p, { v: e.v, h: e.h, at: now });
    return true;
  });
}

/**
 * Drops `paths` from the record: their files were published again. Nothing
 * is written when none is recorded.
 */
export async function forgetVanished(
  store: ObjectStore,
  paths: readonly string[],
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<void> {
  await rewrite(store, retry, signal, (files) => {
    const had = paths.filter((p) => files.delete(p));
    return had.length > 0;
  });
}

/** Applies `change` to the record and writes it (unless `change` says there is nothing to write). */
async function rewrite(
  store: ObjectStore,
  retry: RetryPolicy,
  signal: AbortSignal | undefined,
  change: (files: Map<string, LostFile>) => boolean,
): Promise<void> {
  for (let attempt = 1;; attempt++) {
    const { files, version, legacy, bad } = await current(store, retry, signal);
    // A record that cannot be read is never written over (what it names
    // would be forgotten); nothing to drop from it is no write either.
    if (files === null) {
      if (change(new Map())) {
        throw unreadableError(
          bad ?? (legacy !== undefined && version === null ? LEGACY_VANISHED_KEY : VANISHED_KEY),
        );
      }
      return;
    }
    if (!change(files)) return;
    const paths = Object.fromEntries(files); // own properties, whatever the names
    const body = new TextEncoder().encode(JSON.stringify({ format: FORMAT, paths }));
    const put = (mode: PutMode) =>
      withRetry(() => store.put(VANISHED_KEY, body, mode, { signal }), retry, signal);
    try {
      await put(version === null ? PutModes.create : PutModes.update(version));
      // The earlier release's record, written here now: removed (best
      // effort; left, it is read no more).
      // Only the version read: one an earlier release wrote since is left.
      if (legacy !== undefined) {
        await store.delete(LEGACY_VANISHED_KEY, { ifVersion: legacy, signal }).catch(() => {});
      }
      return;
    } catch (e) {
      // An endpoint that refuses conditional writes: written as it is (two
      // writers at once may then keep one's paths only, as with any object
      // there; such endpoints are told of by the endpoint fallback warning).
      if (e instanceof NotImplementedError) {
        await put(PutModes.overwrite);
        return;
      }
      const raced = e instanceof PreconditionFailedError || e instanceof AlreadyExistsError;
      if (!raced || attempt >= ATTEMPTS) throw e;
    }
  }
}
