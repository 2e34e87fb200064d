/**
 * Notes of take-backs: `_control/.sluice/withdrawn/<sha256 of the path>.json`
 * in the bucket, one per path, `{format: 1, path, v, n}`. A cache taking back
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
 *
 * A note is needed only until the take-back's own delete of the version is
 * done (`clearWithdrawal`, conditional on the note's version, so a later
 * take-back's note stays): a peer's edit uploads over that version only
 * while the store holds it, and one that landed before the delete is gone
 * by then, or held only where the delete met it and left it (the note then
 * stays; met and gone since, taken back by its writer or deleted with the
 * withdrawal, it goes too). A commit reads the note before it looks at the store, so a note
 * gone by its read leaves no delete of the take-back's to come after its
 * look. Left in place, a note would tell a later dropped entry apart
 * wrongly where the path was named again at that very version (the same
 * bytes' ETag on S3): the edit would be left out as a conflict with a
 * deletion nobody made. One left by a take-back cut off before its delete
 * goes when a later push of the cache finishes that deletion
 * ({@link clearWithdrawalOf}); one whose delete met another object goes
 * once a commit names that object (a peer's, or an old client's write: no
 * write over the withdrawn version can land then), and stays while none
 * does (an upload whose commit may still come; a later take-back of the
 * path writes over it).
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import { PutModes } from "../ports.ts";
import { BUCKET_RECORDS_DIR } from "./bucket_layout.ts";
import { getOrNull } from "./index_io.ts";
import { deleteAt } from "./object_ops.ts";
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

/**
 * Writes the note of a take-back of `version` at `path` (over any earlier
 * one); returns the note's own version, for {@link clearWithdrawal}. Each
 * note is told apart by a random `n`, so that two take-backs' notes never
 * share a version (where versions are the bytes': S3 ETags).
 */
export async function noteWithdrawal(
  store: ObjectStore,
  path: string,
  version: string,
  c: Call,
): Promise<string> {
  const key = await withdrawalKey(path);
  const body = new TextEncoder().encode(
    JSON.stringify({ format: FORMAT, path, v: version, n: crypto.randomUUID() }),
  );
  const put = await withRetry(
    () => store.put(key, body, PutModes.overwrite, { signal: c.signal }),
    c.retry,
    c.signal,
  );
  return put.version;
}

/**
 * Removes the note of `path` written by {@link noteWithdrawal} (`note`: its
 * version), once the take-back's delete of the version it names is done;
 * conditional on that version, so a later take-back's note stays. Best
 * effort: a note left is one more that outlives its take-back.
 */
export async function clearWithdrawal(
  store: ObjectStore,
  path: string,
  note: string,
  c: Call,
): Promise<void> {
  await deleteAt(store, await withdrawalKey(path), note, c).catch(() => false);
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
  return got ? namedIn(got.body, path) : undefined;
}

/**
 * Removes the note of `path` where it names `version`, once a delete of
 * that version is done by other means than the take-back that wrote it: a
 * take-back cut off before its delete (or whose answer was lost), finished
 * by a later push's deletion of the version it recorded as synced. The
 * note's own version, read here, is the condition of its delete, so a
 * later take-back's note stays. Best effort, as {@link clearWithdrawal}.
 */
export async function clearWithdrawalOf(
  store: ObjectStore,
  path: string,
  version: string,
  c: Call,
): Promise<void> {
  const key = await withdrawalKey(path);
  const got = await getOrNull(store, key, c).catch(() => null);
  if (!got || namedIn(got.body, path) !== version) return;
  await deleteAt(store, key, got.version, c).catch(() => false);
}

/** The version a note's bytes name for `path`; undefined for any other bytes. */
function namedIn(body: Uint8Array, path: string): string | undefined {
  try {
    const raw = JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown> | null;
    if (raw?.format !== FORMAT || raw.path !== path || typeof raw.v !== "string") return undefined;
    return raw.v;
  } catch {
    return undefined;
  }
}
