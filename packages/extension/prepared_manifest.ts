/**
 * The push manifest `preparePush` hands the tool, which passes it back to
 * `commitPush` untouched: an empty frozen object carrying the prepared push
 * in a symbol-keyed, non-enumerable field (no module-level map holds it).
 * A manifest commits once only; one this process did not prepare, or one
 * already committed, is refused with `internal` and nothing is committed.
 *
 * @module
 */
import { SluiceError } from "../../sync/errors.ts";
import type { SwampPushManifest } from "./contract.ts";
import type { HeldPreparedPush } from "./push_locks.ts";

/** What a manifest carries: the prepared push, its namespace and the held locks under it. */
export interface ManifestData extends HeldPreparedPush {
  readonly namespace: string;
}

/** Where a manifest carries its prepared push. */
const PREPARED: unique symbol = Symbol("sluice.preparedPush");

type CarryingManifest = SwampPushManifest & { [PREPARED]?: ManifestData & { used: boolean } };

/**
 * The manifest handed to the tool for the prepared push `data`.
 *
 * @example
 * ```ts ignore
 * const manifest = carryPrepared({ namespace: "", prepared, held: [] });
 * takePrepared(manifest).prepared === prepared; // true
 * ```
 */
export function carryPrepared(data: ManifestData): SwampPushManifest {
  const manifest = {} as CarryingManifest;
  Object.defineProperty(manifest, PREPARED, {
    value: { ...data, used: false },
    enumerable: false,
  });
  return Object.freeze(manifest) as SwampPushManifest;
}

/**
 * The prepared push `manifest` carries, taken for its commit (once only);
 * throws `internal` for a manifest {@link carryPrepared} did not return, or
 * one already taken.
 */
export function takePrepared(manifest: SwampPushManifest): ManifestData {
  const data = (manifest as CarryingManifest)[PREPARED];
  if (!data || data.used) {
    throw new SluiceError(
      "internal",
      "commitPush was given a manifest that preparePush of this process did not return. Nothing was committed; run the push again.",
    );
  }
  data.used = true; // committed once only
  return data;
}
