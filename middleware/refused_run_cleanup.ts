/**
 * The refused-run-eraser gate's follow-up to a refusal: erasing the versions
 * beside held ones (`eraseBeside`), deleting the `latest` markers a held
 * run's push created (`dropCreatedMarkers`), settling markers a pull left in
 * conflict (`settleMarkers`) and the best-effort refresh of the models' data
 * (`refresh`). The refusal itself is in `refused_run_steps.ts`.
 *
 * @module
 */
import {
  completeErasure,
  type ErasureJournal,
  settleSetAsideMarkers,
  type UploadRef,
} from "./erasure.ts";
import { parentOf } from "../sync/paths.ts";
import type { PushContext } from "../sync/context.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { sha256Hex } from "../sync/hash.ts";
import { deleteAt } from "../sync/transfer/object_ops.ts";
import { putBackAndName } from "../sync/transfer/put_back.ts";
import { readWriterId, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { isUnder, markerOf } from "./erasure_attribution.ts";
import { REFUSED_RUN_ERASER, warnPending, warnRestored } from "./refused_run_hold.ts";

/**
 * Best-effort refresh: a failure is a warning and never replaces the refusal.
 *
 * @example
 * ```ts
 * import { refresh } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * const after = (ctx: PushContext) => refresh(ctx, ["data/t/m"]);
 * ```
 */
export async function refresh(
  ctx: PushContext,
  prefixes: readonly string[],
  leave?: readonly string[],
): Promise<void> {
  if (prefixes.length === 0) return;
  try {
    await ctx.refresh(prefixes, leave);
  } catch (e) {
    ctx.events.emit("warning", {
      code: "refresh_failed",
      message: `Could not refresh ${prefixes.join(", ")} from the datastore (${
        e instanceof Error ? e.message : String(e)
      }). The refused run's data was already discarded from this cache; the next pull brings the datastore's copy.`,
    });
  }
}

/**
 * {@link completeErasure}, or, when it fails, an `erasure_incomplete`
 * warning (`said` of the failure) and null: the journal keeps the rest for
 * the next push.
 *
 * @example
 * ```ts
 * import { completeOrJournaled } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * import type { ErasureJournal } from "./erasure.ts";
 * const finish = (ctx: PushContext, journal: ErasureJournal) =>
 *   completeOrJournaled(ctx, journal, (why) => `not yet (${why})`);
 * ```
 */
export async function completeOrJournaled(
  ctx: PushContext,
  journal: ErasureJournal,
  said: (why: string) => string,
): Promise<Awaited<ReturnType<typeof completeErasure>> | null> {
  try {
    return await completeErasure(ctx, journal);
  } catch (e) {
    ctx.events.emit("warning", {
      code: "erasure_incomplete",
      message: said(e instanceof Error ? e.message : String(e)),
    });
    return null;
  }
}

/**
 * Deletes the journaled uploads (`created`, the markers a held run's push
 * created, among them) while each is still the push's own and named by no
 * index; what cannot be deleted now stays journaled, and the next push
 * deletes it before uploading anything. Never replaces the refusal.
 *
 * @example
 * ```ts
 * import { dropCreatedMarkers } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * import type { ErasureJournal, UploadRef } from "./erasure.ts";
 * const drop = (ctx: PushContext, journal: ErasureJournal, created: UploadRef[]) =>
 *   dropCreatedMarkers(ctx, journal, created);
 * ```
 */
export async function dropCreatedMarkers(
  ctx: PushContext,
  journal: ErasureJournal,
  created: readonly UploadRef[],
): Promise<void> {
  const outcome = await completeOrJournaled(
    ctx,
    journal,
    (why) =>
      `Could not yet delete ${
        created.map((u) => u.path).join(", ")
      } from the datastore (${why}), created by a push refused for losing its model lock and named by no index. The deletion is journaled: the next push completes it before uploading anything.`,
  );
  if (!outcome) return;
  if (outcome.deleted.length > 0) {
    ctx.note(
      REFUSED_RUN_ERASER,
      `deleted ${
        outcome.deleted.join(", ")
      } from the datastore (created by this push, named by no index); the held versions' files were left in place`,
    );
  }
  warnRestored(ctx, outcome.restored);
  warnPending(ctx, outcome.pending);
}

/**
 * Puts back the committed `latest` marker of each held directory that this
 * push's marker upload was written over (a first pass held the marker back
 * with files it found in place, and this, its second pass, was refused).
 * The index names the committed marker, the store keeps only the upload
 * (one object a path): left, readers lose the committed marker, and every
 * peer's write of it waits on an upload no index names, for as long as the
 * run stays held. The upload is deleted while it is still this cache's and
 * the committed bytes (a version number left here whose bytes hash to the
 * entry's) are put back and named in place of the version the index names,
 * only while it still names it. The cache keeps the run's marker, held and
 * dirty. Never over an old client's entry; best effort: what is not done is
 * a warning, and the upload stays as before.
 */
export async function putBackOverwrittenMarkers(
  ctx: PushContext,
  held: readonly string[],
): Promise<void> {
  const call = { retry: ctx.config.retry, signal: ctx.signal, concurrency: ctx.config.concurrency };
  for (const marker of new Set(held.map(markerOf))) {
    const up = ctx.uploaded.find((u) => u.path === marker && !u.created && u.outcome === "written");
    if (!up) continue;
    try {
      const writer = await readWriterId(ctx.cache);
      const head = await ctx.store.head(marker, { signal: ctx.signal });
      if (
        !head || writer === null || head.version !== up.info.version ||
        head.metadata?.[WRITER_METADATA] !== writer
      ) continue;
      const index = await readIndex(
        ctx.store,
        ctx.config.retry,
        ctx.signal,
        ctx.config.concurrency,
      );
      const named = index?.entries[marker];
      if (!named || named.v === head.version || isUnversioned(named) || named.h === "") continue;
      const bytes = await committedBytes(ctx, marker, held, named.h);
      if (!bytes) continue;
      if (!(await deleteAt(ctx.store, marker, head.version, call))) continue;
      const synced = ctx.state.synced(marker);
      const asSynced = synced?.version === named.v ? synced : undefined;
      const done = await putBackAndName(ctx.store, marker, bytes, named, {
        ...call,
        now: () => ctx.clock.now(),
        metadata: { [WRITER_METADATA]: writer },
        ...(asSynced
          ? {
            placed: (version: string) => ctx.state.recordSynced(marker, { ...asSynced, version }),
          }
          : {}),
      });
      if (done.kind === "named") {
        ctx.note(
          REFUSED_RUN_ERASER,
          `${marker}: put back the committed marker this push's upload was written over (the run's marker stays here, held)`,
        );
      } else if (asSynced) await ctx.state.recordSynced(marker, asSynced);
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      ctx.events.emit("warning", {
        code: "erasure_pending",
        message:
          `Could not yet put back the committed ${marker} on the datastore, over which a push refused for losing its model lock wrote its own (${
            e instanceof Error ? e.message : String(e)
          }).`,
        path: marker,
      });
    }
  }
}

/** The committed bytes of `marker` (hashing to `hash`): a version left here beside the held ones. */
async function committedBytes(
  ctx: PushContext,
  marker: string,
  held: readonly string[],
  hash: string,
): Promise<Uint8Array | null> {
  const parent = parentOf(marker);
  const versions = new Set<string>();
  for (const f of await ctx.cache.listFiles(parent).catch(() => [] as string[])) {
    const v = f.slice(parent.length + 1).split("/")[0];
    if (/^\d+$/.test(v) && !held.some((d) => isUnder(f, d))) versions.add(v);
  }
  for (const v of versions) {
    for (const t of [v, `${v}\n`]) {
      const b = new TextEncoder().encode(t);
      if ((await sha256Hex(b)) === hash) return b;
    }
  }
  return null;
}

/**
 * Erases the versions a refusal does not hold (another model's, beside a
 * held one), with what the journal holds to delete; a failure is a warning
 * and the journal keeps the rest for the next push. Never replaces the refusal.
 *
 * @example
 * ```ts
 * import { eraseBeside } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * import type { ErasureJournal } from "./erasure.ts";
 * const erase = (ctx: PushContext, journal: ErasureJournal) =>
 *   eraseBeside(ctx, journal, ["data/t/other/versions/1"]);
 * ```
 */
export async function eraseBeside(
  ctx: PushContext,
  journal: ErasureJournal,
  erase: readonly string[],
): Promise<void> {
  const outcome = await completeOrJournaled(
    ctx,
    journal,
    (why) =>
      `Could not finish discarding ${
        erase.join(", ")
      } (${why}). The erasure is journaled: the next push completes it before uploading anything, so none of this run's data is pushed.`,
  );
  if (!outcome) return;
  ctx.note(
    REFUSED_RUN_ERASER,
    `discarded ${erase.join(", ")}${
      outcome.deleted.length ? `; deleted ${outcome.deleted.join(", ")} from the datastore` : ""
    }`,
  );
  warnRestored(ctx, outcome.restored);
  warnPending(ctx, outcome.pending);
}

/**
 * Settles on the datastore's marker each `latest` marker of the lost locks'
 * models that a pull during the run left in conflict, naming a version whose
 * copy here it set aside (see `settleSetAsideMarkers`), and says so
 * (`latest_reset`): the refresh that follows brings the datastore's marker.
 *
 * @example
 * ```ts
 * import { settleMarkers } from "./refused_run_cleanup.ts";
 * import type { PushContext } from "../sync/context.ts";
 * const settle = (ctx: PushContext) => settleMarkers(ctx, ["data/t/m"]);
 * ```
 */
export async function settleMarkers(ctx: PushContext, prefixes: readonly string[]): Promise<void> {
  for (const m of await settleSetAsideMarkers(ctx.cache, ctx.state, prefixes)) {
    const dir = parentOf(m.path);
    ctx.note(REFUSED_RUN_ERASER, `settled ${m.path} on the datastore's marker`);
    ctx.events.emit("warning", {
      code: "latest_reset",
      message:
        `${m.path} was changed here and named version ${m.was}, in conflict with the datastore's marker: another writer published version ${m.was} of ${dir} while this run held the lock it lost, and this cache's copy of it was set aside and is not published. The conflict is settled: the marker is the datastore's again (this refusal's refresh, or the next pull, brings it), so that later runs publish theirs.`,
      path: m.path,
    });
  }
}
