/**
 * The writes of a lockfile transaction (`lockfile_txn.ts`): the conditional
 * put of the lockfile (marked in its metadata as the transaction's copy, and
 * with this cache's writer id, as every Sluice write is),
 * the record of a publish (the remote index, the cache copy, the synced
 * manifest, the pending delta cleared), and the warnings a transaction
 * gives of entries it did not publish or that another client dropped.
 *
 * @module
 */
import { droppedEntriesWarning, LOCKFILE_TXN_METADATA } from "../service/pull_lockfile.ts";
import { shellWord } from "../shell_word.ts";
import {
  AlreadyExistsError,
  ConditionalWritesUnsupportedError,
  NotImplementedError,
  PreconditionFailedError,
} from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import { type ObjectInfo, type PutMode, PutModes } from "../ports.ts";
import { withRetry } from "../retry.ts";
import { updateIndex } from "../transfer/remote_index.ts";
import { ensureWriterId, WRITER_METADATA } from "../transfer/writer_id.ts";
import { indexDiscovery } from "../service/index_discovered.ts";
import { type LockfileChange, type LockfileEntries, parseLockfile } from "./lockfile_change.ts";
import { writePendingLockfileDelta } from "./lockfile_pending.ts";
import type { LockfileService } from "./lockfile_txn.ts";

/**
 * After a publish (or a remote copy found to hold the result already): the
 * remote index names it, the cache copy and the synced manifest match it,
 * and the pending delta of `path` is cleared. `base`: the version the
 * publish was conditional on (null: created), or the version found to hold
 * the result; when a peer's later publish has replaced it by the time the
 * index is updated (this writer lost the global lock meanwhile), the index
 * keeps the peer's entry.
 */
export async function recordPublishedLockfile(
  service: LockfileService,
  path: string,
  body: Uint8Array,
  version: string,
  signal: AbortSignal | undefined,
  base: string | null,
): Promise<void> {
  const { store, config } = service;
  const hash = await sha256Hex(body);
  await updateIndex(
    store,
    {
      set: { [path]: { v: version, h: hash, s: body.length } },
      remove: [],
      base: { [path]: base },
    },
    config.retry,
    signal,
    undefined,
    config.concurrency,
    () => service.clock.now(),
    undefined,
    // The bucket's first commit may be this one: it names what is there.
    indexDiscovery(store, config.retry, service.events, signal, config.concurrency),
  );
  await service.cache.write(path, body);
  const st = await service.cache.stat(path);
  const entry = { hash, version, size: body.length, mtimeMs: st?.mtimeMs, ctimeMs: st?.ctimeMs };
  // Saved outside a push, pull or resolution: a damaged line of the log
  // that save takes in (another process's record, lost) is told by the
  // state as it takes it in, as a command's take-in is.
  await service.state.recordSynced(path, entry);
  await service.state.clean([path]);
  // The local copy is now the datastore's, which holds this change: a
  // conflict a pull recorded at the path (changed here and there) is over.
  await service.state.conflicts.settle([path]);
  await writePendingLockfileDelta(service.cache, path, null);
}

/**
 * A conditional put of the lockfile; null when the remote changed since it
 * was fetched. The copy carries this cache's writer id, as every object a
 * push writes does: until an index update names it (one cut off leaves it
 * so, its change pending here), it is a Sluice write whose commit has not
 * come, which no index discovery names as another tool's object, and which
 * is told to be this cache's.
 */
export async function putLockfileConditional(
  service: LockfileService,
  path: string,
  body: Uint8Array,
  mode: PutMode,
  signal: AbortSignal | undefined,
): Promise<ObjectInfo | null> {
  const { store, config, events } = service;
  // Marked as the transaction's copy: a pull tells a plain write by another client from it.
  const metadata = {
    [LOCKFILE_TXN_METADATA]: "txn",
    [WRITER_METADATA]: await ensureWriterId(service.cache, false),
  };
  const o = { signal, metadata };
  try {
    return await withRetry(() => store.put(path, body, mode, o), config.retry, signal);
  } catch (e) {
    if (e instanceof PreconditionFailedError || e instanceof AlreadyExistsError) return null;
    if (!(e instanceof NotImplementedError)) throw e;
    if (config.conditionalWrites === "required") {
      throw new ConditionalWritesUnsupportedError(store.endpoint, "refused");
    }
  }
  // The endpoint refuses conditional writes: compare, then write, under the global lock.
  const head = await withRetry(() => store.head(path, { signal }), config.retry, signal);
  const expected = mode.kind === "update" ? mode.version : undefined;
  if ((head?.version ?? undefined) !== expected) return null;
  events.emit("warning", {
    code: "conditional_writes_fallback",
    message:
      `${store.endpoint} refuses conditional writes; the managed lockfile ${path} was published with a check-then-write under the datastore's global lock.`,
    path,
  });
  return await withRetry(
    () => store.put(path, body, PutModes.overwrite, o),
    config.retry,
    signal,
  );
}

/**
 * A datastore copy of the lockfile written outside the transaction (no
 * {@link LOCKFILE_TXN_METADATA}: an existing client's write of its own
 * copy), other than the copy this cache last synced, which this cache's
 * copy still is: the entries it drops or sets back against that copy (but
 * those this change sets or removes) are told of (`lockfile_entries_dropped`),
 * as a pull that takes such a copy tells of them; the transaction then
 * applies this change to the datastore's copy, as always.
 */
export async function warnDroppedOutside(
  service: LockfileService,
  path: string,
  current: { body: Uint8Array; version: string; metadata?: Readonly<Record<string, string>> },
  remote: LockfileEntries,
  delta: LockfileChange,
): Promise<void> {
  if (current.metadata?.[LOCKFILE_TXN_METADATA] !== undefined) return;
  const synced = service.state.synced(path);
  if (!synced || synced.version === current.version) return;
  const body = await service.cache.read(path).catch(() => null);
  if (!body || (await sha256Hex(body)) !== synced.hash) return;
  let was: LockfileEntries;
  try {
    was = parseLockfile(body);
  } catch {
    return;
  }
  const keep = new Set([...Object.keys(delta.set ?? {}), ...(delta.remove ?? [])]);
  const warning = droppedEntriesWarning(path, was, remote, keep);
  if (warning) service.events.emit("warning", warning);
}

/** The warning code of an entry change left out because another checkout changed that entry meanwhile. */
export const LOCKFILE_ENTRY_CONFLICT = "lockfile_entry_conflict";

/** Says what became of an entry change left out for another checkout's (see `LockfileChange.base`). */
export function entryConflictWarning(
  path: string,
  c: { name: string; mine: unknown; base: unknown; theirs: unknown },
): { code: string; message: string; path: string } {
  const shown = (v: unknown) => v === null ? "no entry" : JSON.stringify(v);
  const again = c.mine === null
    ? `\`sluice lockfile remove ${shellWord(c.name)}\``
    : `\`sluice lockfile add ${shellWord(c.name)} ${shellWord(JSON.stringify(c.mine))}\``;
  return {
    code: LOCKFILE_ENTRY_CONFLICT,
    message: `The entry ${c.name} of ${path} was changed by another checkout meanwhile (from ${
      shown(c.base)
    } to ${shown(c.theirs)}), so this checkout's change of it (to ${
      shown(c.mine)
    }) was not applied over theirs; the datastore's copy keeps theirs, and the rest of the change was published. To make your change anyway, run ${again}.`,
    path,
  };
}
