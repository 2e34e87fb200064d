/**
 * Test support for Sluice users: the in-memory store with fault injection,
 * the fake clock, `waitFor`, and the conformance suites that every store and
 * every lock backend must pass.
 *
 * @module
 */
export * from "./in_memory_store.ts";
export * from "./fake_clock.ts";
export * from "./wait_for.ts";
export * from "./store_contract.ts";
export * from "./mock_context.ts";
export * from "./lock_conformance.ts";
export * from "./absent_on_error.ts";
export * from "./cache_files.ts";
export * from "./layout_peer.ts";
export * from "./swamp_conformance.ts";
export * from "./hooked_store.ts";
