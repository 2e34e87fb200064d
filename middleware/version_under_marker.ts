/**
 * version-under-marker: a data version is never deleted from the datastore
 * while its `latest` marker names it.
 *
 * A push that deletes a version's files (`sluice push <version dir>` after
 * the directory was removed here, or `pushChanged({ only })`) while the
 * marker here still names that version would leave every reader pointed at
 * files the index no longer lists. So a deletion of a data version file
 * whose directory the marker in this cache names (the marker as it is here
 * now, changed or not) is left out, dirty, with the reason; moving the
 * marker to another version here first (and pushing both) deletes it. A
 * marker removed here too, or naming another version, lets it through,
 * unless the committed marker names the version (the one this cache
 * synced, or the one the datastore's index names) and this push cannot
 * publish the marker here in its place: not planned, no version number, or
 * naming a version neither held here as published or written by this push
 * nor listed by the datastore once its take-backs are made (a version
 * deleted here whose own uploads the push takes back). marker-after-version
 * then holds the marker, and the datastore's stays the committed one, or is
 * put back to it over this cache's upload (`marker_stranded.ts`): the
 * version deleted, that marker would name nothing. Such a deletion is held
 * the same way, with its own reason; one let through as the marker here is
 * published in its place is looked at again once the uploads are made
 * (`beforeCommit`), and held where a file of the version that marker names
 * was held back since (another writer's upload in the way) or taken back:
 * the commit step makes no deletion left out so. A
 * `resolve --mine` that would publish a deletion held for either reason
 * (as the plan tells) is refused before its push instead
 * (`version_under_marker`, `sync/version_marker.ts`,
 * `sync/service/resolve_marker_hold.ts`): held here, it would leave the
 * conflict gone and the deletion waiting. Both hold by one rule
 * (`sync/version_marker_hold.ts`), each over its own looks.
 *
 * So does a file the datastore no longer holds where the index names the
 * version this cache synced: this cache's deletion of it was made, and its
 * commit cut off (a push that moved the marker off the version, stopped
 * before the index update, the marker here moved back onto it since). The
 * deletion takes nothing from a reader left; held, the entry would name
 * nothing for good, so its commit goes (chaos seed 226400214).
 *
 * So does a file no index names any more: its deletion takes nothing from a
 * reader the marker points at. That is a withdrawal of this cache's own
 * upload cut off part way (`dropOwnStranded` in `sync/service/push_delete.ts`
 * takes the entry out first, records the upload as synced, then deletes it):
 * held here, the unnamed upload would stay on the datastore for good, and
 * every peer's write of the path would wait on it as on an uncommitted one
 * (chaos seed 199930188).
 *
 * @module
 */
import type { PlanEntry, PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import { markerBeside, VERSION_UNDER_MARKER } from "../sync/version_marker.ts";
import { parentOf } from "../sync/paths.ts";
import { markerVerdicts } from "../sync/version_marker_hold.ts";
import {
  committedMarkerReason,
  lazyIndex,
  pushMarkerLooks,
  stillPublished,
  underMarkerReason,
  unnamedIn,
} from "./version_under_marker_looks.ts";

/** The gate's registered name. */
export { VERSION_UNDER_MARKER };

/** The reasons a held deletion gives (see `version_under_marker_looks.ts`). */
export { committedMarkerReason, underMarkerReason };

/**
 * The gate (push phase `guard`).
 *
 * @example
 * ```ts
 * import { versionUnderMarker } from "./version_under_marker.ts";
 * const gate = versionUnderMarker();
 * ```
 */
export function versionUnderMarker(): Middleware<PushContext> {
  return async function versionUnderMarkerGate(ctx, next) {
    // The rule `resolve --mine` looks at too, over this push: each marker
    // read once, as it is here now.
    const index = lazyIndex(ctx);
    const unnamed = unnamedIn(ctx, index);
    const verdict = markerVerdicts(pushMarkerLooks(ctx, index));
    const watched: { e: PlanEntry; reason: string }[] = [];
    for (const e of ctx.plan) {
      if (e.action !== "delete" || e.class !== "data-version") continue;
      const { marker, n } = markerBeside(e.path);
      const v = await verdict(marker, n);
      if (v.kind === "free") continue;
      if (v.kind === "here") {
        hold(ctx, e, underMarkerReason(marker, n), await unnamed(e.path));
        continue;
      }
      const reason = committedMarkerReason(marker, n, v.here);
      if (v.kind === "committed") hold(ctx, e, reason, await unnamed(e.path));
      else watched.push({ e, reason });
    }
    // Let through as the marker here is published in its place: looked at
    // again once the uploads are made, before the commit step writes the
    // marker and makes the deletions. A file of its version held back since
    // (another writer's upload in the way) or taken back holds the marker,
    // and so the deletion.
    if (watched.length > 0) {
      ctx.beforeCommit.push(async () => {
        for (const { e, reason } of watched) {
          if (e.action !== "delete" || await stillPublished(ctx, e)) continue;
          hold(ctx, e, reason, await unnamed(e.path));
        }
      });
    }
    await next();
  };
}

/**
 * Leaves the deletion `e` out, dirty, with `reason`, unless no index names
 * its file, or the store holds nothing where the index names the version
 * synced here (`look`: see `unnamedIn`).
 */
function hold(
  ctx: PushContext,
  e: PlanEntry,
  reason: string,
  look: "goes" | "landed" | "dropped" | "held",
): void {
  const marker = `${parentOf(parentOf(e.path))}/latest`;
  if (look === "goes") {
    ctx.note(VERSION_UNDER_MARKER, `${e.path}: no index names it, its deletion goes`, e);
    return;
  }
  if (look === "landed") {
    ctx.note(
      VERSION_UNDER_MARKER,
      `${e.path}: the datastore holds it no more (its deletion made, its commit cut off), its commit goes`,
      e,
    );
    return;
  }
  e.action = "skip";
  e.keepDirty = true;
  e.reason = reason;
  e.handledBy.push(VERSION_UNDER_MARKER);
  // Its entry dropped, the store holding the version synced: held, it
  // would stay named by no index for good (a pull leaves a deletion
  // marked here to the push), so the push names it again.
  if (look === "dropped") e.nameSynced = true;
  ctx.note(VERSION_UNDER_MARKER, `${e.path}: ${marker} names its version, kept`, e);
}

/**
 * The gate's default registration (phase `guard`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { versionUnderMarkerEntry } from "./version_under_marker.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(versionUnderMarkerEntry());
 * ```
 */
export function versionUnderMarkerEntry(): MiddlewareEntry<PushContext> {
  return {
    name: VERSION_UNDER_MARKER,
    phase: "guard",
    middleware: versionUnderMarker(),
    description:
      "a data version is never deleted from the datastore while its latest marker here names it",
  };
}
