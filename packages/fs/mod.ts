/**
 * The embedded default store: {@link FsStore}, an `ObjectStore` on a local
 * directory that several processes may share.
 *
 * @example
 * ```ts
 * import { FsStore } from "./mod.ts";
 * const store = new FsStore({ root: await Deno.makeTempDir() });
 * console.log(store.endpoint);
 * ```
 *
 * @module
 */
export * from "./store.ts";
export { CorruptObjectError } from "./object_file.ts";
