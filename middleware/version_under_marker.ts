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
 * marker removed here too, or naming another version, lets it through.
 *
 * @module
 */
import type { PushContext } from "../sync/context.ts";
import { shellWord } from "../sync/shell_word.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";

/** The gate's registered name. */
export const VERSION_UNDER_MARKER = "version-under-marker";

/** Why a version file's deletion was left out. */
export function underMarkerReason(marker: string, n: string): string {
  const version = `${marker.slice(0, marker.lastIndexOf("/"))}/${n}`;
  return `the latest marker ${marker} names this version (${n}): a version is never deleted while its marker names it, so that no reader is pointed at files the index no longer lists; set ${marker} to another version here, then push both (\`sluice push ${
    shellWord(version)
  } ${shellWord(marker)}\`)`;
}

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
    // The marker of each data name, read once: what it names here now.
    const named = new Map<string, string | null>();
    for (const e of ctx.plan) {
      if (e.action !== "delete" || e.class !== "data-version") continue;
      const dir = e.path.slice(0, e.path.lastIndexOf("/"));
      const slash = dir.lastIndexOf("/");
      const n = dir.slice(slash + 1);
      const marker = `${dir.slice(0, slash)}/latest`;
      if (!named.has(marker)) {
        const bytes = await ctx.cache.read(marker).catch(() => null);
        named.set(
          marker,
          bytes && bytes.length <= 64 ? new TextDecoder().decode(bytes).trim() : null,
        );
      }
      if (named.get(marker) !== n) continue;
      e.action = "skip";
      e.keepDirty = true;
      e.reason = underMarkerReason(marker, n);
      e.handledBy.push(VERSION_UNDER_MARKER);
      ctx.note(VERSION_UNDER_MARKER, `${e.path}: ${marker} names its version, kept`, e);
    }
    await next();
  };
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
