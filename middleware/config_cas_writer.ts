/**
 * config-cas-writer: the per-write half of the lockfile-guard and the
 * overwrite-cas gate. Those give a config file, a latest marker, an index
 * file or other state a compare-and-swap mode: `update` on the version this
 * cache last synced, or `create` when it never synced one. When that write
 * is refused because a peer changed (or created, or deleted) the file
 * remotely, this gate turns the refusal into a conflict instead of a failed
 * push: nothing is overwritten, the local copy is kept and stays dirty, the
 * entry carries the datastore's version (`entry.conflict`), which the push
 * records as an unresolved conflict, and a warning (`config_changed_remotely`
 * for config files, `changed_remotely` for the others) names the file and
 * the command that resolves it.
 *
 * Every such write carries this cache's writer id (object metadata
 * `sluice-writer`, a random id kept in the cache's state). What is done with
 * the object a refused write meets (the same bytes, this cache's own
 * uncommitted write, a deletion not committed yet, another writer's
 * uncommitted upload, a snapshot or a newer `latest` marker rebased, a
 * conflict) is in `config_cas_met.ts`.
 *
 * @module
 */
import type { PathClass, WriteContext, WriteGateEntry } from "../sync/context.ts";
import { AlreadyExistsError, PreconditionFailedError } from "../sync/errors.ts";
import type { Middleware } from "../sync/pipeline.ts";
import { WRITER_METADATA, writerId } from "./own_writes.ts";
import { CONFIG_CAS_WRITER, settleRefused } from "./config_cas_met.ts";

export {
  CHANGED_REMOTELY,
  CONFIG_CHANGED_REMOTELY,
  PUSH_WAITING_UNCOMMITTED,
} from "./cas_outcomes.ts";

export { WRITER_METADATA } from "./own_writes.ts";

/** The gate's registered name (defined beside what the gate does with a refused write). */
export { CONFIG_CAS_WRITER } from "./config_cas_met.ts";

/** The classes whose conditional writes this gate turns into conflicts. */
export const CAS_CLASSES: ReadonlySet<PathClass | undefined> = new Set([
  "config",
  "latest-marker",
  "index",
  "other",
]);

/**
 * The gate. Acts only on config files written with a conditional mode; every
 * other write passes through untouched.
 *
 * @example
 * ```ts
 * import { configCasWriter } from "./config_cas_writer.ts";
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * const write = new Pipeline<WriteContext>(WRITE_PHASES);
 * write.add({ name: "config-cas-writer", phase: "mode", middleware: configCasWriter() });
 * ```
 */
export function configCasWriter(): Middleware<WriteContext> {
  return async function configCasWriterGate(ctx, next) {
    if (!CAS_CLASSES.has(ctx.entry.class) || ctx.mode.kind === "overwrite") return await next();
    const writer = await writerId(ctx);
    ctx.metadata[WRITER_METADATA] = writer;
    try {
      await next();
      return;
    } catch (e) {
      if (!(e instanceof PreconditionFailedError || e instanceof AlreadyExistsError)) throw e;
    }
    await settleRefused(ctx, writer);
  };
}

/**
 * The gate's default registration: write phase `mode`.
 *
 * @example
 * ```ts
 * import { configCasWriterEntry } from "./config_cas_writer.ts";
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { WRITE_PHASES, type WriteContext } from "../sync/context.ts";
 * new Pipeline<WriteContext>(WRITE_PHASES).add(configCasWriterEntry());
 * ```
 */
export function configCasWriterEntry(): WriteGateEntry {
  return {
    appliesTo: (entry) =>
      entry.class === "config" ||
      (CAS_CLASSES.has(entry.class) && entry.mode !== undefined && entry.mode.kind !== "overwrite"),
    name: CONFIG_CAS_WRITER,
    phase: "mode",
    middleware: configCasWriter(),
    description:
      "a config file, marker or other file a peer changed since the last sync is never overwritten: it becomes a recorded conflict",
  };
}
