/**
 * Every gate of the default pipeline, for gate authors and for tests of one
 * gate alone: its name (as `describe()` and gate events show it), the
 * middleware, and the entry that places it in the pipeline. The composition
 * root (`sluice.ts`, `defaultPipelines`) wires them; nothing here runs by
 * itself.
 *
 * @example
 * ```ts
 * import { LOCK_FENCE, lockFence } from "./mod.ts";
 * import { mockPushContext, spyNext } from "../packages/testing/mod.ts";
 * const next = spyNext();
 * await lockFence()((await mockPushContext()).ctx, next); // no locks held: it passes
 * console.log(LOCK_FENCE, next.calls); // lock-fence 1
 * ```
 *
 * @module
 */
export { PATH_CLASSIFIER, pathClassifier, pathClassifierEntry } from "./path_classifier.ts";
export { LOCK_FENCE, lockFence, lockFenceEntry } from "./lock_fence.ts";
export {
  REFUSED_RUN_ERASER,
  refusedRunEraser,
  refusedRunEraserEntry,
} from "./refused_run_eraser.ts";
export { LOCKFILE_GUARD, lockfileGuard, lockfileGuardEntry } from "./lockfile_guard.ts";
export { OVERWRITE_CAS, overwriteCas, overwriteCasEntry } from "./overwrite_cas.ts";
export {
  UNSYNCED_WALK_GUARD,
  unsyncedWalkGuard,
  unsyncedWalkGuardEntry,
} from "./unsynced_walk_guard.ts";
export {
  UNFINISHED_VERSION_HOLDER,
  unfinishedVersionHolder,
  unfinishedVersionHolderEntry,
} from "./unfinished_version_holder.ts";
export {
  underMarkerReason,
  VERSION_UNDER_MARKER,
  versionUnderMarker,
  versionUnderMarkerEntry,
} from "./version_under_marker.ts";
export {
  MARKER_AFTER_VERSION,
  markerAfterVersion,
  markerAfterVersionEntry,
} from "./marker_after_version.ts";
export {
  REQUIRED_CONDITIONAL_CHECK,
  requiredConditionalCheck,
  requiredConditionalCheckEntry,
} from "./required_conditional_check.ts";
export {
  ENDPOINT_FALLBACK_WARNER,
  endpointFallbackWarner,
  endpointFallbackWarnerEntry,
} from "./endpoint_fallback_warner.ts";
export {
  CREATE_ONLY_WRITER,
  createOnlyWriter,
  createOnlyWriterEntry,
} from "./create_only_writer.ts";
export { CONFIG_CAS_WRITER, configCasWriter, configCasWriterEntry } from "./config_cas_writer.ts";
