/**
 * Repairing the managed lockfile when the datastore's copy is malformed.
 *
 * A transaction never publishes over a remote lockfile that is not a JSON
 * object of entries: it fails with `lockfile_remote_malformed` and keeps its
 * change as a pending delta. Retrying cannot help, because every retry meets
 * the same bytes. {@link repairManagedLockfile} is the way out. Under the
 * datastore's global lock it reads the remote copy, keeps its bytes in the
 * cache's set-aside area (`.sluice/set-aside/`), and replaces it with the
 * merged state: the cache's last good copy (its local lockfile, when that is
 * a JSON object) with every pending delta applied. The write is a
 * compare-and-swap on the malformed copy's version, so a peer that fixed the
 * copy in between is never overwritten: when the copy read again is valid,
 * the pending delta is applied to it as in a normal transaction. A dry run
 * only reads, and reports what it would publish.
 *
 * @module
 */
import { sayingGlobalLockWait } from "./global_lock_wait.ts";
import { ConfigError, NotFoundError, preview, SluiceError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import { STATE_DIR } from "../transfer/cache.ts";
import { SET_ASIDE_REASON_FILE, setAsideReasonBytes } from "../transfer/cache_state.ts";
import { globalLockKey } from "./model_locks.ts";
import { PutModes } from "../ports.ts";
import { withRetry } from "../retry.ts";
import { releaseOrWarn } from "./lock_release.ts";
import {
  DEFAULT_LOCKFILE_ATTEMPTS,
  type LockfileService,
  type LockfileTxnOptions,
  managedLockfilePath,
  putLockfileConditional,
  readPendingLockfileDeltas,
  recordPublishedLockfile,
  serialiseLockfileWork,
  setAsideMalformedLocal,
} from "./lockfile_txn.ts";
import {
  applyLockfileChange,
  describeLockfileChange,
  isEmptyLockfileChange,
  type LockfileChange,
  type LockfileEntries,
  parseLockfile,
  serializeLockfile,
} from "./lockfile_change.ts";

/** Options of {@link repairManagedLockfile}. */
export interface LockfileRepairOptions extends LockfileTxnOptions {
  /** Only read and report: no lock is taken and nothing is written. */
  readonly dryRun?: boolean;
}

/** What was wrong with the datastore's copy of the lockfile. */
export interface LockfileRemoteProblem {
  /** The malformed object's version. */
  readonly version: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Why it is not a lockfile (the parse error). */
  readonly problem: string;
  /** Its first characters, on one line. */
  readonly preview: string;
}

/**
 * Where a repair's entries came from: the cache's copy as last synced, a
 * valid local copy that differs from it (e.g. showing a pending change), or
 * nothing (no valid local copy: only the pending delta is published).
 */
export type LockfileRepairBase = "synced" | "local" | "none";

/**
 * How a repair ended. `repaired`: the malformed copy was replaced (a dry run
 * says `would_repair`). `peer_repaired`: another writer replaced it with a
 * valid copy first, and the pending delta was applied to that copy.
 * `healthy`: the remote copy was readable (or absent) from the start; a
 * pending delta was published as by `sluice lockfile retry`.
 */
export type LockfileRepairOutcome = "repaired" | "would_repair" | "peer_repaired" | "healthy";

/** What {@link repairManagedLockfile} found and did. */
export interface LockfileRepairResult {
  /** Cache-relative path (and store key) of the lockfile. */
  readonly path: string;
  /** True for a dry run (nothing was written). */
  readonly dryRun: boolean;
  /** How it ended. */
  readonly outcome: LockfileRepairOutcome;
  /** What was wrong with the remote copy when first read; null when it was a JSON object or absent. */
  readonly problem: LockfileRemoteProblem | null;
  /** Where the replacement's entries came from; null unless a malformed copy was (or would be) replaced. */
  readonly base: LockfileRepairBase | null;
  /** This cache's pending delta that was (or would be) applied; null when none. */
  readonly pending: LockfileChange | null;
  /** The lockfile's entries as published, or as they would be / are when nothing was written. */
  readonly entries: LockfileEntries;
  /** True when the remote copy was written. */
  readonly published: boolean;
  /** The remote object's version afterwards (as read, when nothing was written; absent when none). */
  readonly version?: string;
  /** Where the malformed remote bytes were kept, cache-relative (under `.sluice/set-aside/`). */
  readonly setAside: readonly string[];
  /** Read-replace rounds used. */
  readonly attempts: number;
}

type RemoteCopy =
  | { kind: "absent" }
  | { kind: "valid"; body: Uint8Array; version: string; entries: LockfileEntries }
  | { kind: "malformed"; body: Uint8Array; version: string; problem: LockfileRemoteProblem };

async function readRemote(
  service: LockfileService,
  path: string,
  signal: AbortSignal | undefined,
): Promise<RemoteCopy> {
  let got: { body: Uint8Array; version: string };
  try {
    got = await withRetry(() => service.store.get(path, { signal }), service.config.retry, signal);
  } catch (e) {
    if (e instanceof NotFoundError) return { kind: "absent" };
    throw e;
  }
  try {
    return { kind: "valid", ...got, entries: parseLockfile(got.body) };
  } catch (e) {
    const problem = {
      version: got.version,
      size: got.body.length,
      problem: e instanceof Error ? e.message : String(e),
      preview: preview(new TextDecoder().decode(got.body), 60),
    };
    return { kind: "malformed", ...got, problem };
  }
}

/** The cache's last good copy: its local lockfile when that is a JSON object. */
async function lastGoodCopy(
  service: LockfileService,
  path: string,
): Promise<{ base: LockfileRepairBase; entries: LockfileEntries }> {
  const local = await service.cache.read(path).catch(() => null);
  if (!local) return { base: "none", entries: {} };
  try {
    const entries = parseLockfile(local);
    const synced = service.state.synced(path)?.hash;
    return { base: synced === await sha256Hex(local) ? "synced" : "local", entries };
  } catch {
    return { base: "none", entries: {} };
  }
}

/** Keeps a malformed remote copy's bytes in the set-aside area; returns where (`.sluice/set-aside/…`). */
async function setAsideRemoteCopy(
  service: LockfileService,
  path: string,
  body: Uint8Array,
  problem: LockfileRemoteProblem,
): Promise<string> {
  const now = service.clock.now();
  const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
  const dir = `set-aside/${stamp}-remote-${crypto.randomUUID().slice(0, 6)}`;
  const reason =
    `the datastore's copy of ${path} (version ${problem.version}) was malformed (${problem.problem}); \`sluice lockfile repair\` kept it here before replacing it`;
  await service.cache.writeStateBytes(
    `${dir}/${SET_ASIDE_REASON_FILE}`,
    setAsideReasonBytes(path, { reason, at: now }),
  );
  await service.cache.writeStateBytes(`${dir}/${path}`, body);
  return `${STATE_DIR}/${dir}/${path}`;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Shows what is wrong with the datastore's copy of the managed lockfile and,
 * unless `dryRun`, replaces a malformed copy with the merged state under the
 * global lock: see the module documentation. A readable copy is left to the
 * normal transaction (a pending delta is published on it). Throws
 * `lockfile_conflict` when the remote changed under every attempt; the
 * pending delta is then still kept.
 *
 * @example
 * ```ts
 * import { repairManagedLockfile } from "./lockfile_repair.ts";
 * import type { SyncService } from "../service/service.ts";
 * async function repair(service: SyncService) {
 *   const plan = await repairManagedLockfile(service, { dryRun: true });
 *   if (plan.problem) console.log(plan.problem.problem, Object.keys(plan.entries));
 *   return await repairManagedLockfile(service);
 * }
 * ```
 */
export async function repairManagedLockfile(
  service: LockfileService,
  options: LockfileRepairOptions = {},
): Promise<LockfileRepairResult> {
  const path = managedLockfilePath(options.namespace);
  const dryRun = options.dryRun ?? false;
  if (!dryRun && !service.lockBackend) {
    throw new ConfigError(
      "lockBackend",
      "a lock backend: the lockfile repair takes the datastore's global lock",
    );
  }
  return await serialiseLockfileWork(service, async () => {
    if (dryRun) return await repairRounds(service, path, options);
    await setAsideMalformedLocal(service, path);
    const lockKey = globalLockKey(options.namespace);
    const lock = service.lockBackend!.createLock(lockKey, service.identity, options.lockOptions);
    await lock.acquire(
      await sayingGlobalLockWait(
        lock,
        service.events,
        "the lockfile repair waits for it",
        options.signal,
        service.identity,
      ),
    );
    try {
      return await repairRounds(service, path, options, () => {
        if (lock.lost) throw new Error(`the global lock ${lockKey} was lost during the repair.`);
      });
    } finally {
      // A release that fails is a warning: what the repair published stands.
      await releaseOrWarn(lock, service.events);
    }
  });
}

async function repairRounds(
  service: LockfileService,
  path: string,
  options: LockfileRepairOptions,
  checkLock?: () => void,
): Promise<LockfileRepairResult> {
  const signal = options.signal;
  const dryRun = options.dryRun ?? false;
  const delta = (await readPendingLockfileDeltas(service.cache))[path] ?? {};
  const pending = isEmptyLockfileChange(delta) ? null : delta;
  const good = await lastGoodCopy(service, path);
  const setAside: string[] = [];
  let problem: LockfileRemoteProblem | null | undefined;
  const max = Math.max(1, options.maxAttempts ?? DEFAULT_LOCKFILE_ATTEMPTS);
  for (let attempt = 1; attempt <= max; attempt++) {
    checkLock?.();
    const remote = await readRemote(service, path, signal);
    if (problem === undefined) problem = remote.kind === "malformed" ? remote.problem : null;
    const malformed = remote.kind === "malformed";
    const entries = applyLockfileChange(
      malformed ? good.entries : remote.kind === "valid" ? remote.entries : {},
      delta,
    );
    const outcome: LockfileRepairOutcome = malformed
      ? (dryRun ? "would_repair" : "repaired")
      : (problem ? "peer_repaired" : "healthy");
    const result = {
      path,
      dryRun,
      outcome,
      problem,
      base: malformed ? good.base : null,
      pending,
      entries,
      setAside,
      attempts: attempt,
    };
    const current = remote.kind === "absent" ? undefined : remote;
    const body = serializeLockfile(entries);
    if (dryRun || (!malformed && !pending)) {
      return { ...result, published: false, ...(current ? { version: current.version } : {}) };
    }
    if (remote.kind === "valid" && sameBytes(body, serializeLockfile(remote.entries))) {
      await recordPublishedLockfile(
        service,
        path,
        remote.body,
        remote.version,
        signal,
        remote.version,
      );
      return { ...result, published: false, version: remote.version };
    }
    if (remote.kind === "malformed") {
      setAside.push(await setAsideRemoteCopy(service, path, remote.body, remote.problem));
    }
    const mode = current ? PutModes.update(current.version) : PutModes.create;
    const put = await putLockfileConditional(service, path, body, mode, signal);
    if (!put) continue; // changed since read (a peer's write): read again and decide again
    await recordPublishedLockfile(
      service,
      path,
      body,
      put.version,
      signal,
      current?.version ?? null,
    );
    return { ...result, published: true, version: put.version };
  }
  throw new SluiceError(
    "lockfile_conflict",
    `The managed lockfile ${path} changed between read and replace on each of ${max} attempts during its repair (another writer kept replacing it). Nothing was published by the repair; this checkout's pending change (${
      pending ? describeLockfileChange(pending) : "none"
    }) is kept${
      setAside.length ? `, and the malformed copies read were kept in ${setAside.join(", ")}` : ""
    }. Run \`sluice lockfile repair\` again later.`,
    { retryable: true },
  );
}
