/**
 * Whose a push's writes are: this cache's writer id, read once per push,
 * and whether a data version's write is this cache's own.
 *
 * @module
 */
import type { ObjectInfo } from "../ports.ts";
import { readWriterId, WRITER_METADATA, type WriterIdState } from "../transfer/writer_id.ts";
import type { WriteContext } from "../context.ts";

/** A push's view of its writer id (see {@link pushOwnership}). */
export interface PushOwnership {
  /** This cache's writer id (null: none yet), read at most once. */
  readonly ownWriter: () => Promise<string | null>;
  /** `{ own: id }` where the write's object is this cache's own, `{}` otherwise. */
  readonly ownOf: (wctx: WriteContext, info: ObjectInfo) => Promise<{ own?: string }>;
}

/**
 * The writer id of a push's cache, read on first use, and whose a data
 * version's write is.
 *
 * @example
 * ```ts
 * import { pushOwnership } from "./push_own.ts";
 * const none = { readState: () => Promise.resolve(null), writeState: () => Promise.resolve() };
 * await pushOwnership(none).ownWriter(); // null
 * ```
 */
export function pushOwnership(cache: WriterIdState): PushOwnership {
  let writer: Promise<string | null> | undefined;
  const ownWriter = () => writer ??= readWriterId(cache);
  // Whose a data version's write is, for the synced entry: this cache's
  // writer id where it created the object (or found in place its own
  // upload: a push whose commit was cut off, run again).
  const ownOf = async (wctx: WriteContext, info: ObjectInfo): Promise<{ own?: string }> => {
    const id = await ownWriter();
    if (id === null) return {};
    const by = wctx.outcome === "identical"
      ? info.metadata?.[WRITER_METADATA]
      : wctx.metadata[WRITER_METADATA];
    return by === id ? { own: id } : {};
  };
  return { ownWriter, ownOf };
}
