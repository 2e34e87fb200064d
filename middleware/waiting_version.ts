/**
 * A version directory held back from a push: another writer's upload of it
 * that no index names is in the way. Its files stay dirty and uncommitted,
 * this cache's own uploads of them go, and a sibling written meanwhile is
 * taken back too.
 *
 * @module
 */
import { type PushContext, PushVar, type WriteContext } from "../sync/context.ts";
import { MARKER_WAITS, VERSION_WAITS } from "../sync/service/push_result.ts";
import { markerOf } from "./erasure_attribution.ts";
import { dropOwn, dropOwnSiblings } from "./lost_version_own.ts";

/** Per push: version directories held back, another writer's uncommitted upload in the way. */
const WAITING = new PushVar("create-only-writer/waiting", () => new Map<string, Promise<void>>());

/** True when this push holds the version directory back (see {@link waitVersion}). */
export function versionWaits(push: PushContext, dir: string): Promise<void> | undefined {
  return push.vars.get(WAITING).get(dir);
}

/**
 * Holds the whole version directory back from this push, once per directory:
 * another writer's upload of it that no index names is in the way. Its files
 * are never committed by this push (this cache's own uploads of them no index
 * names are deleted), they stay dirty, and so does a `latest` marker naming
 * the version; said once (`push_waiting_uncommitted`).
 */
export function waitVersion(
  push: PushContext,
  dir: string,
  key: string,
  found: string,
  writer: string,
  /** The upload in the way is this cache's own refused run's, its erasure pending. */
  ownErasure = false,
): Promise<void> {
  const byDir = push.vars.get(WAITING);
  const earlier = byDir.get(dir);
  if (earlier) return earlier;
  const done = (async () => {
    const files = await push.cache.listFiles(dir);
    for (const f of files) push.withdrawn.add(f);
    await dropOwnSiblings(push, files.filter((f) => f !== key), writer);
    const marker = markerOf(dir);
    const named = new TextDecoder().decode((await push.cache.read(marker)) ?? new Uint8Array())
      .trim();
    for (const entry of push.plan) {
      const inside = files.includes(entry.path);
      const naming = entry.path === marker &&
        `${dir.slice(0, dir.lastIndexOf("/"))}/${named}` === dir;
      if (!inside && !naming) continue;
      entry.action = "skip";
      entry.keepDirty = true;
      entry.reason = naming ? `${VERSION_WAITS} ${MARKER_WAITS}` : VERSION_WAITS;
      // Marked again: the commit cleans only the marks not renewed since the push began.
      if (!push.dryRun) await push.state.markDirty(entry.path);
    }
    push.events.emit("warning", {
      code: "push_waiting_uncommitted",
      message: ownErasure
        ? `${dir} was not pushed: the datastore still holds this cache's upload of ${key} (version ${found}) from a run refused for losing its model lock, whose erasure could not delete it yet (erasure_pending); no index lists it. Nothing was overwritten; the local copy stays dirty, and the next push deletes that upload, then publishes this copy; \`sluice status\` lists what waits.`
        : `${dir} was not pushed: the datastore holds another writer's upload of ${key} (version ${found}) that its index does not list (a run refused for losing its model lock, whose erasure deletes it, or a commit on its way). Nothing was overwritten; the local copy stays dirty, and the next push publishes it once that upload is gone, or meets it published (version_exists). If that writer is gone for good (a crashed run, whose upload nothing will erase), \`sluice push --adopt-uncommitted ${dir}\` replaces its upload with this copy once that upload is 15 minutes old; \`sluice status\` lists what waits.`,
      path: key,
    });
  })();
  byDir.set(dir, done);
  return done;
}

/**
 * After a write of a file of the version directory `dir`: when a sibling met
 * another writer's upload meanwhile (the version waits), what this write
 * `created` is taken back too, and nothing of it is committed (true).
 */
export async function unlessSiblingWaits(
  ctx: WriteContext,
  dir: string,
  created?: string,
): Promise<boolean> {
  const waits = versionWaits(ctx.push, dir);
  if (!waits) return false;
  await waits;
  if (created !== undefined) await dropOwn(ctx.push, ctx.key, created);
  ctx.outcome = undefined;
  ctx.result = undefined;
  return true;
}
