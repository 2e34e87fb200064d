/**
 * Notes of take-backs: `_control/.sluice/withdrawn/<sha256 of the path>.json`
 * in the bucket, one per path, `{format: 1, path, v}`. A cache taking back
 * its own committed write (its commit landed, its answer lost, the file
 * deleted here since) writes the note naming that write's version before it
 * takes the entry out (`unnameOwn` in `service/push_delete.ts`).
 *
 * An index entry can go missing two ways: such a take-back, or an old
 * client's pull writing back the index it read (it drops a commit that
 * landed in between; nobody deleted the file). A peer's commit of an edit
 * over the version it synced while the index named it (`namedBase`) that
 * finds no entry, its write still held, cannot tell them apart from the
 * index alone: on a store whose deletes check the version and then delete,
 * a take-back can delete that write after its commit. The note tells: a
 * missing entry over a version a note names is a committed withdrawal (the
 * edit is the peer's conflict with it), any other is a dropped entry (the
 * edit is named again).
 *
 * The layout's other clients leave `_control/` out of their listings: they
 * never name, fetch or delete a note, and no entry of theirs changes.
 * Notes are never removed: a later take-back of the path writes over its
 * note. One left by an earlier take-back can tell a later dropped entry
 * apart wrongly only where the path was named again at that very version
 * (the same bytes' ETag on S3) since and its entry dropped before such an
 * edit: the edit is then left out as a conflict, its bytes kept by its
 * writer, and the path holds nothing on the store until `--mine`
 * publishes it again.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import { PutModes } from "../ports.ts";
import { BUCKET_RECORDS_DIR } from "./bucket_layout.ts";
import { getOrNull } from "./index_io.ts";
import { sha256Hex } from "../hash.ts";
import { type RetryPolicy, withRetry } from "../retry.ts";

/** Where the notes live (internal to Sluice: never pulled, indexed or pushed). */
export const WITHDRAWN_DIR = `${BUCKET_RECORDS_DIR}/withdrawn`;

/** The format this code reads and writes. */
const FORMAT = 1;

interface Call {
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
}

/** The key of `path`'s note. */
export async function withdrawalKey(path: string): Promise<string> {
  return `${WITHDRAWN_DIR}/${await sha256Hex(new TextEncoder().encode(path))}.json`;
}

/** Writes the note of a take-back of `version` at `path` (over any earlier one). */
export async function noteWithdrawal(
  store: ObjectStore,
  path: string,
  version: string,
  c: Call,
): Promise<void> {
  const key = await withdrawalKey(path);
  const body = new TextEncoder().encode(JSON.stringify({ format: FORMAT, path, v: version }));
  await withRetry(
    () => store.put(key, body, PutModes.overwrite, { signal: c.signal }),
    c.retry,
    c.signal,
  );
}

/**
 * The version the note of `path` names as taken back; undefined where there
 * is none, or one that cannot be read (another tool wrote it), or one of
 * another path (a hash clash). A failed read throws.
 */
export async function withdrawnVersion(
  store: ObjectStore,
  path: string,
  c: Call,
): Promise<string | undefined> {
  const got = await getOrNull(store, await withdrawalKey(path), c);
  if (!got) return undefined;
  try {
    const raw = JSON.parse(new TextDecoder().decode(got.body)) as Record<string, unknown> | null;
    if (raw?.format !== FORMAT || raw.path !== path || typeof raw.v !== "string") return undefined;
    return raw.v;
  } catch {
    return undefined;
  }
}
