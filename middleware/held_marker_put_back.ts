/**
 * After a refusal into a held version: the committed `latest` marker put
 * back where this push's own marker upload was written over it, so that
 * readers keep the marker the index names while the run stays held. Used
 * by `refused_run_steps.ts`.
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { isUnversioned } from "../sync/transfer/bucket_layout.ts";
import { replaceAndName } from "../sync/transfer/put_back.ts";
import { readWriterId, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { markerOf } from "./erasure_attribution.ts";
import { REFUSED_RUN_ERASER } from "./refused_run_hold.ts";
import { committedMarkerBytes, warnUnrestored } from "./marker_committed_bytes.ts";

/**
 * Puts back the committed `latest` marker of each held directory that this
 * push's marker upload was written over (a first pass held the marker back
 * with files it found in place, and this, its second pass, was refused).
 * The index names the committed marker, the store keeps only the upload
 * (one object a path): left, readers lose the committed marker, and every
 * peer's write of it waits on an upload no index names, for as long as the
 * run stays held. The committed bytes (a version number left here whose
 * bytes hash to the entry's) are written over the upload while it is still
 * this cache's, and named in place of the version the index names, only
 * while it still names it. The cache keeps the run's marker, held and
 * dirty. Never over an old client's entry; best effort: committed bytes it
 * cannot recover (no version number here hashes to them: another tool's
 * marker), an old client's entry, or a failure of the datastore leave the
 * upload as it was, and say so (`committed_marker_unrestored`): readers find
 * no committed marker meanwhile, no later push makes the put-back while the
 * run is held, and the way out is the held version's "keep" or "discard"
 * (the marker here recomputed), then a push, which writes the marker here
 * over the upload.
 */
export async function putBackOverwrittenMarkers(
  ctx: PushContext,
  held: readonly string[],
): Promise<void> {
  const call = { retry: ctx.config.retry, signal: ctx.signal, concurrency: ctx.config.concurrency };
  for (const marker of new Set(held.map(markerOf))) {
    const up = ctx.uploaded.find((u) => u.path === marker && !u.created && u.outcome === "written");
    if (!up) continue;
    const unrestored = (why: string) =>
      warnUnrestored(
        ctx.events,
        marker,
        why,
        `The run's marker stays in this cache, held and dirty, and no push makes this while the run is held. Run \`sluice held ${
          held.filter((d) => markerOf(d) === marker).join(" ")
        } --keep\` to publish the held version with its marker in place of the upload, or \`--discard\` (the marker here recomputed), then push: either writes the marker here over the upload.`,
      );
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
      if (!named || named.v === head.version) continue;
      const why = isUnversioned(named)
        ? "the index names another client's entry there, which Sluice never writes over"
        : named.h === ""
        ? "the index records no hash of it to recover its bytes by"
        : undefined;
      const bytes = why ? null : await committedMarkerBytes(ctx.cache, marker, named.h, held);
      if (!bytes) {
        unrestored(why ?? "its bytes are no version number held in this cache");
        continue;
      }
      const synced = ctx.state.synced(marker);
      const asSynced = synced?.version === named.v ? synced : undefined;
      // Written over the upload, never deleted first: an old client's pull
      // that found the path empty would drop the marker's entry for good.
      const done = await replaceAndName(ctx.store, marker, head.version, bytes, named, {
        ...call,
        now: () => ctx.clock.now(),
        metadata: { [WRITER_METADATA]: writer },
        ...(asSynced
          ? {
            placed: (version: string) => ctx.state.recordSynced(marker, { ...asSynced, version }),
          }
          : {}),
      });
      if (!done) continue;
      if (done.kind === "named") {
        ctx.note(
          REFUSED_RUN_ERASER,
          `${marker}: put back the committed marker this push's upload was written over (the run's marker stays here, held)`,
        );
      } else if (asSynced) await ctx.state.recordSynced(marker, asSynced);
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      unrestored(`the datastore failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
