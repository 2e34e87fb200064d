/**
 * A view of an {@link ObjectStore} whose keys live under `<ns>/`: what a
 * namespaced sync service sees, so that its index and data keys are
 * `<ns>/<rel>` in the bucket while the service itself knows no namespace.
 * Retries stay in one layer (`retriesInternally` is forwarded), and so does
 * streaming (`getStream` only when the store has it).
 *
 * @module
 */
import { UnsafePathError } from "../../sync/errors.ts";
import { isSafeRelPath } from "../../sync/paths.ts";
import type {
  CallOptions,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../../sync/ports.ts";

/**
 * The store seen under `prefix` (one or more path segments, no trailing `/`).
 *
 * @example
 * ```ts
 * import { PrefixedStore } from "./prefixed_store.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * const root = new InMemoryStore();
 * const ns = new PrefixedStore(root, "prod");
 * await ns.put("data/x", new Uint8Array([1]), { kind: "overwrite" });
 * console.log((await root.head("prod/data/x"))?.key); // prod/data/x
 * ```
 */
export class PrefixedStore implements ObjectStore {
  /** The store underneath. */
  readonly inner: ObjectStore;
  /** The key prefix, without a trailing `/`. */
  readonly prefix: string;
  readonly endpoint: string;
  readonly retriesInternally?: boolean;
  readonly deletesChecked?: boolean;
  readonly getStream?: (key: string, options?: CallOptions) => Promise<GetStreamResult>;

  constructor(inner: ObjectStore, prefix: string) {
    if (!isSafeRelPath(prefix)) throw new UnsafePathError(prefix, "not a clean key prefix");
    this.inner = inner;
    this.prefix = prefix;
    this.endpoint = `${inner.endpoint}/${prefix}`;
    if (inner.retriesInternally !== undefined) this.retriesInternally = inner.retriesInternally;
    if (inner.deletesChecked !== undefined) this.deletesChecked = inner.deletesChecked;
    const getStream = inner.getStream;
    if (getStream) {
      this.getStream = async (key, options) => {
        const r = await getStream.call(inner, this.#full(key), options);
        return { ...r, key: this.#strip(r.key) };
      };
    }
  }

  #full(key: string): string {
    return `${this.prefix}/${key}`;
  }

  #strip(key: string): string {
    return key.startsWith(`${this.prefix}/`) ? key.slice(this.prefix.length + 1) : key;
  }

  #info<T extends ObjectInfo>(info: T): T {
    return { ...info, key: this.#strip(info.key) };
  }

  async get(key: string, options?: CallOptions): Promise<GetResult> {
    return this.#info(await this.inner.get(this.#full(key), options));
  }

  async head(key: string, options?: CallOptions): Promise<ObjectInfo | null> {
    const r = await this.inner.head(this.#full(key), options);
    return r ? this.#info(r) : null;
  }

  async put(key: string, body: PutBody, mode: PutMode, options?: PutOptions): Promise<ObjectInfo> {
    return this.#info(await this.inner.put(this.#full(key), body, mode, options));
  }

  delete(key: string, options?: DeleteOptions): Promise<void> {
    return this.inner.delete(this.#full(key), options);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<readonly ObjectInfo[]> {
    for await (const page of this.inner.list(this.#full(prefix), options)) {
      yield page.map((i) => this.#info(i));
    }
  }
}
