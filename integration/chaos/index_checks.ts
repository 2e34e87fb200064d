/**
 * The checks on the remote index after the final healing sync:
 *
 * - I7: the remote index never names an object version the store does not
 *   hold. The index is read as every client reads it, through `readIndex`
 *   (the v1 index object, or the v2 shards under their meta). During a
 *   history it may lag (a crash between a commit-step write and the index
 *   update leaves it naming the replaced version until the crashed clone's
 *   next push repairs it), so it is checked only at the end;
 * - I8: a fresh clone gets every committed file, markers included: an empty
 *   cache pulls, and holds every path the index names with the bytes the
 *   index records, with nothing skipped as uncommitted.
 *
 * Also: an index reader over a {@link StoreInspector}, for the checks that
 * read the index during the history (no faults, no scheduling).
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import { isLayoutInternal, isUnversioned } from "../../sync/transfer/bucket_layout.ts";
import { NotFoundError } from "../../sync/errors.ts";
import { sha256Hex } from "../../sync/hash.ts";
import type { Clock, GetResult, ObjectStore } from "../../sync/ports.ts";
import { type IndexEntry, readIndex } from "../../sync/transfer/remote_index.ts";
import type { RetryPolicy } from "../../sync/retry.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { CHAOS_CONFIG, CHAOS_FILE_CLOCK } from "./clone_setup.ts";
import type { StoreInspector, Violation } from "./truth_records.ts";

const NO_RETRY: RetryPolicy = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const RETRY: RetryPolicy = { retries: 2, minTimeoutMs: 10, maxTimeoutMs: 50 };

/**
 * A read-only store over `inspect` that `readIndex` can read (gets only;
 * object versions are unknown, so the index token is not meaningful).
 */
function inspectorStore(inspect: StoreInspector): ObjectStore {
  const refuse = () => Promise.reject(new Error("read-only view of the chaos store"));
  return {
    endpoint: "chaos-inspector://",
    get: async (key): Promise<GetResult> => {
      const body = await inspect.read(key);
      if (!body) throw new NotFoundError(key);
      return { key, version: "", size: body.length, lastModified: 0, metadata: {}, body };
    },
    head: () => refuse(),
    put: () => refuse(),
    delete: () => refuse(),
    // deno-lint-ignore require-yield
    list: async function* () {
      await refuse();
    },
  };
}

/**
 * The remote index's entries as every client reads them (v1 or v2), read
 * through `inspect`; empty when the bucket has none or it is unreadable.
 */
export async function indexEntriesOf(
  inspect: StoreInspector,
): Promise<Record<string, IndexEntry>> {
  return (await readIndexEntriesOf(inspect)) ?? {};
}

/** {@link indexEntriesOf}, but null when the bucket has no index or it is unreadable. */
export async function readIndexEntriesOf(
  inspect: StoreInspector,
): Promise<Record<string, IndexEntry> | null> {
  try {
    return (await readIndex(inspectorStore(inspect), NO_RETRY))?.entries ?? null;
  } catch {
    return null;
  }
}

/**
 * I7 over `direct` (a healed store, read past faults and scheduling), but
 * at paths `spared` (an old client's stopped push, left as it left it).
 * Returns the index read (for I8) and the violations.
 */
export async function checkIndexNamesHeld(
  direct: ObjectStore,
  spared: (path: string, entry: IndexEntry) => boolean = () => false,
): Promise<{ entries: Record<string, IndexEntry>; violations: Violation[] }> {
  const violations: Violation[] = [];
  let entries: Record<string, IndexEntry> = {};
  try {
    entries = (await readIndex(direct, RETRY))?.entries ?? {};
  } catch (e) {
    violations.push({
      invariant: "I7",
      message: `the remote index is unreadable after the final sync: ${(e as Error).message}`,
      afterOp: -1,
    });
    return { entries, violations };
  }
  for (const [path, e] of Object.entries(entries)) {
    if (isLayoutInternal(path) || spared(path, e)) continue;
    const head = await direct.head(path);
    if (!head) {
      violations.push({
        invariant: "I7",
        message:
          `the remote index names ${path} (version ${e.v}), but the store has no such object`,
        afterOp: -1,
      });
    } else if (!isUnversioned(e) && head.version !== e.v) {
      violations.push({
        invariant: "I7",
        message:
          `the remote index names version ${e.v} of ${path}, but the store holds version ${head.version} (after the final sync)`,
        afterOp: -1,
      });
    }
  }
  return { entries, violations };
}

/**
 * I11: after the final sync the store holds no object that the index does
 * not name (locks and the layout's own objects aside). Such an object is a
 * write whose commit never came, left for good: no reader sees it, and a
 * peer's write of the path waits on it. The one exception is a clone's own
 * write of a path on which that clone has an open conflict: its pending
 * change, which the conflict's resolution publishes or drops; or of a path
 * its push holds back (its own shape in the way of the other one the
 * datastore holds: `blocked_record.ts`), which waits there until the way is
 * clear; or the very object (path and version) a run of that clone's held
 * for `erasure_refused` uploaded, as its erasure journal records it
 * (`heldUploads`): the held version's files stay on the datastore by design
 * until the user resolves the run (`sluice held --keep` publishes them,
 * `--discard` deletes them; `middleware/erasure_held.ts`), and no history
 * resolves one; and an old client's own file (`oldClientFile`), whose failed
 * push leaves it so; and a clone's own write at a path whose record that
 * clone lost (`recordLost`: a damaged line of its manifest log held it) and
 * whose index entry an old client's pull dropped since: the clone counts
 * the path as never synced (or synced at its record before), so no pull of
 * its names it again, and a deletion of it made here by hand goes
 * unpushed. The lost record leads to that, as it leads to a deletion
 * fetched again when the entry stands. So too, whoever wrote it, the very
 * object (path and version) a clone holds synced, its file deleted there
 * (or replaced by a directory of its name) with no mark of the path
 * (`deletedHere`): a local deletion waiting for its user's decision, which
 * only a push of the path's name makes on the datastore, and which a pull
 * with `restoreDeleted` takes back. Its entry gone (an old client's
 * write-back dropped it), the object stays unnamed meanwhile, by design: a
 * push of everything pending never deletes (`pull_removals.ts`).
 */
export async function checkNothingUnnamed(
  direct: ObjectStore,
  entries: Record<string, IndexEntry>,
  clones: readonly {
    writer: string | null;
    conflicts: { has(path: string): boolean };
    heldBack?: (path: string) => boolean;
    heldUploads?: readonly { readonly path: string; readonly version: string }[];
    recordLost?: (path: string) => boolean;
    deletedHere?: (path: string, version: string) => boolean;
  }[],
  oldClientFile: (key: string) => boolean = () => false,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for await (const page of direct.list("")) {
    for (const o of page) {
      if (isLayoutInternal(o.key) || o.key.startsWith(".locks/") || Object.hasOwn(entries, o.key)) {
        continue;
      }
      // An old client uploads, then rewrites the index: a push of its that
      // failed in between leaves its upload unnamed, as it always has.
      // An S3 listing carries no user metadata: the object's own head does.
      const meta = o.metadata ?? (await direct.head(o.key))?.metadata;
      if (oldClientFile(o.key) && !meta?.[WRITER_METADATA]) continue;
      const writer = meta?.[WRITER_METADATA];
      const pending = clones.some((c) =>
        c.deletedHere?.(o.key, o.version) === true ||
        c.writer === writer && (c.conflicts.has(o.key) || c.heldBack?.(o.key) === true ||
            c.recordLost?.(o.key) === true ||
            (c.heldUploads ?? []).some((u) => u.path === o.key && u.version === o.version))
      );
      if (pending) continue;
      violations.push({
        invariant: "I11",
        message: `the store holds ${o.key} (version ${o.version}, writer ${
          writer ?? "unknown"
        }) that the index does not name (after the final sync)`,
        afterOp: -1,
      });
    }
  }
  return violations;
}

/**
 * I8: a fresh clone (an empty cache at `<root>/fresh` over `store`, past
 * faults and scheduling) pulls once and must then hold every path of
 * `entries` with the recorded size and hash.
 */
export async function checkFreshClone(
  at: { readonly root: string; readonly store: ObjectStore; readonly clock: Clock },
  entries: Record<string, IndexEntry>,
  spared: (path: string) => boolean = () => false,
): Promise<Violation[]> {
  const fresh = await createSluice({
    cacheDir: `${at.root}/fresh`,
    store: at.store,
    identity: { holder: "fresh@chaos", hostname: "fresh-host", pid: 1 },
    clock: at.clock,
    fileClock: CHAOS_FILE_CLOCK,
    config: CHAOS_CONFIG,
  });
  const out: Violation[] = [];
  const v = (message: string) => out.push({ invariant: "I8", message, afterOp: -1 });
  let skipped: string[] = [];
  try {
    const r = await fresh.pullChanged();
    skipped = r.uncommitted;
    if (r.setAside.length > 0 || r.conflicts.length > 0) {
      v(`a fresh clone's pull set aside or conflicted on ${[...r.setAside, ...r.conflicts][0]}`);
    }
  } catch (e) {
    v(`a fresh clone's pull failed: ${(e as Error).message}`);
    return out;
  }
  for (const path of skipped) {
    if (!spared(path)) v(`a fresh clone's pull skipped ${path} as not yet committed`);
  }
  for (const [path, e] of Object.entries(entries)) {
    if (isLayoutInternal(path) || skipped.includes(path) || spared(path)) continue;
    let body: Uint8Array;
    try {
      body = await Deno.readFile(`${fresh.cacheDir}/${path}`);
    } catch {
      v(`a fresh clone does not get ${path}, which the remote index names (version ${e.v})`);
      continue;
    }
    if (body.length !== e.s || (e.h && (await sha256Hex(body)) !== e.h)) {
      v(`a fresh clone's copy of ${path} is not the one the remote index records`);
    }
  }
  return out;
}
