/**
 * The local copy of the managed lockfile around a `lockfile add | remove`:
 * the transaction writes the datastore's copy with the change into the
 * cache, so a copy changed here by hand (or never synced: a project's own
 * lockfile) is moved aside first and what it held that the published
 * lockfile lacks is told, with the command that publishes each entry. While
 * a conflict at the lockfile is open, the transaction is refused: the
 * conflict's own resolution decides between the two copies.
 *
 * @module
 */
import { SluiceError } from "../sync/errors.ts";
import { sha256Hex } from "../sync/hash.ts";
import {
  applyLockfileChange,
  type LockfileChange,
  type LockfileEntries,
  parseLockfile,
  sameLockfileValue,
} from "../sync/locks/lockfile_change.ts";
import { readPendingLockfileDeltas } from "../sync/locks/lockfile_txn.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import type { GetResult } from "../sync/ports.ts";
import { statePath } from "../sync/transfer/cache.ts";
import type { SyncService } from "../sync/service/service.ts";
import { shellWord } from "../sync/shell_word.ts";
import type { Output } from "./output.ts";

/** A changed local copy the transaction set aside: where, and its entries. */
export interface LocalLockfileAside {
  readonly location: string;
  readonly entries: LockfileEntries;
}

/**
 * Before a lockfile transaction on `path`: refuses while a conflict is open
 * there (`lockfile_local_changed`, nothing changed); moves a local copy that
 * is not the one this cache last synced (nor, never synced, the datastore's)
 * to the set-aside area. A copy that is no JSON object is left to the
 * transaction, which sets it aside itself (`lockfile_local_malformed`).
 * `remoteCopy` reads the datastore's copy (once; the caller may have it).
 */
export async function asideBeforeTxn(
  service: SyncService,
  path: string,
  signal?: AbortSignal,
  remoteCopy: () => Promise<GetResult | null> = () =>
    getOrNull(service.store, path, { retry: service.config.retry, signal }),
): Promise<LocalLockfileAside | null> {
  // First: whatever is here (or not), an open conflict decides between the two copies.
  if (service.conflicts().some((c) => c.path === path)) {
    throw new SluiceError(
      "lockfile_local_changed",
      `${path} has an open conflict: the copy here and the datastore's both changed. A lockfile transaction would write the datastore's copy with this change over the copy here, so nothing was done. Resolve it first: \`sluice resolve ${path} --theirs\` takes the datastore's copy (yours is set aside, kept), then add the entries of yours you need with \`sluice lockfile add <name> '<entry JSON>'\`, and run this command again.`,
    );
  }
  const local = await service.cache.read(path).catch(() => null);
  if (!local) return null;
  let entries: LockfileEntries;
  try {
    entries = parseLockfile(local);
  } catch {
    return null;
  }
  const hash = await sha256Hex(local);
  const synced = service.state.synced(path);
  if (synced?.hash === hash) return null;
  const pending = (await readPendingLockfileDeltas(service.cache))[path];
  if (!synced || pending) {
    const remote = await remoteCopy();
    if (remote && await sha256Hex(remote.body) === hash) return null;
    // What a failed transaction left here: the datastore's copy with the
    // pending change (which this transaction publishes), no change of a user's.
    let theirs: LockfileEntries = {};
    try {
      theirs = remote ? parseLockfile(remote.body) : {};
    } catch {
      theirs = {};
    }
    if (pending && sameLockfileValue(applyLockfileChange(theirs, pending), entries)) return null;
  }
  const reason = synced
    ? "the local copy of the managed lockfile was changed here since it was last synced; a lockfile transaction writes the datastore's copy with its change in its place"
    : "the local copy of the managed lockfile was never synced; a lockfile transaction writes the datastore's copy with its change in its place";
  return {
    location: await service.cache.setAside(path, reason, "lockfile_local_changed"),
    entries,
  };
}

/**
 * After the transaction: tells where the copy set aside went and, of its
 * entries, each the lockfile now holds differently or not at all, with the
 * command that publishes it, and the entries it lacked (removed by hand, or
 * added by another checkout: never removed by anything unasked). `now` null:
 * the transaction failed and the copy could not be put back.
 */
export function tellAside(
  out: Output,
  service: SyncService,
  path: string,
  aside: LocalLockfileAside,
  now: LockfileEntries | null,
  change: LockfileChange = {},
): void {
  const where = statePath(service.cache.stateDir, aside.location);
  if (now === null) {
    out.warn({
      code: "lockfile_local_changed",
      message:
        `The local copy of ${path} was not the one this cache last synced (changed by hand, or never synced): it was moved to ${where} before the lockfile transaction, which then failed, publishing nothing, and it could not be put back. Move it back to ${path} by hand (it holds your entries), then run the command again once the datastore answers.`,
      path,
    });
    return;
  }
  // The transaction's own change is no entry of the copy's to tell of.
  const own = new Set([...Object.keys(change.set ?? {}), ...(change.remove ?? [])]);
  const missing = Object.entries(aside.entries).filter(([name, value]) =>
    !own.has(name) && (!Object.hasOwn(now, name) || !sameLockfileValue(now[name], value))
  );
  const lacked = Object.keys(now).filter((name) =>
    !own.has(name) && !Object.hasOwn(aside.entries, name)
  );
  const publish = missing.map(([name, value]) =>
    `\`sluice lockfile add ${shellWord(name)} ${shellWord(JSON.stringify(value))}\``
  );
  out.warn({
    code: "lockfile_local_changed",
    message:
      `The local copy of ${path} was not the one this cache last synced (changed by hand, or never synced), and a lockfile transaction writes the datastore's copy with its change: it was moved to ${where} first. ${
        missing.length === 0
          ? "Every entry it held is in the lockfile as published."
          : `Of its entries, the lockfile as published lacks or holds differently ${
            missing.map(([name]) => name).join(", ")
          }: to publish ${missing.length === 1 ? "it" : "them"}, run ${publish.join(", then ")}.`
      }${
        lacked.length === 0
          ? ""
          : ` The lockfile also holds ${
            lacked.join(", ")
          }, which the moved copy lacked (another checkout's additions, or entries you removed by hand: \`sluice lockfile remove <name>\` removes one).`
      } Then delete the moved copy.`,
    path,
  });
}
