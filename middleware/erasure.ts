/**
 * The durable erasure of a refused run's data versions: a journal in the
 * cache's state directory (`erasure_journal.ts`), the attribution check (is a
 * version directory provably this run's own? `erasure_attribution.ts`), the
 * erasure itself (remote objects the push
 * already uploaded, the cache, the dirty set, the synced manifest) and the
 * recomputation of each affected `latest` marker. A file published on the
 * datastore already is never erased from the cache (`erasure_published.ts`).
 *
 * The refused-run-eraser gate drives these steps; a push that finds a
 * non-empty journal (the process died mid-erasure) completes it before
 * anything is uploaded.
 *
 * @module
 */
export * from "./erasure_journal.ts";
export * from "./erasure_journal_lock.ts";
export * from "./erasure_attribution.ts";
export * from "./erasure_steps.ts";
export * from "./erasure_markers.ts";
export * from "./erasure_complete.ts";
export * from "./erasure_published.ts";
export * from "./erasure_held.ts";
