/**
 * A store wrapper whose outage can be switched on and off: while `down`,
 * every call fails with `UnreachableError`, as a datastore that cannot be
 * reached does. The demo uses it to replay the incidents that need an
 * outage on the embedded default store (a local directory).
 *
 * @module
 */
import { UnreachableError } from "../sync/errors.ts";
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
} from "../sync/ports.ts";

/**
 * Wraps a store; set {@link OutageStore.down} to cut it off.
 *
 * @example
 * ```ts
 * import { OutageStore } from "./outage_store.ts";
 * import { FsStore } from "../packages/fs/mod.ts";
 * const store = new OutageStore(new FsStore({ root: await Deno.makeTempDir() }));
 * store.down = true; // every call now fails with UnreachableError
 * ```
 */
export class OutageStore implements ObjectStore {
  /** True while the store is cut off. */
  down = false;
  readonly #inner: ObjectStore;

  /** Wraps `inner`, reachable at first. */
  constructor(inner: ObjectStore) {
    this.#inner = inner;
  }

  /** The wrapped store's endpoint. */
  get endpoint(): string {
    return this.#inner.endpoint;
  }

  /** As the wrapped store. */
  get retriesInternally(): boolean | undefined {
    return this.#inner.retriesInternally;
  }

  #check(): void {
    if (this.down) throw new UnreachableError(`${this.endpoint} is cut off (a simulated outage)`);
  }

  /** See {@link ObjectStore.get}. */
  get(key: string, options?: CallOptions): Promise<GetResult> {
    return Promise.resolve().then(() => {
      this.#check();
      return this.#inner.get(key, options);
    });
  }

  /** See {@link ObjectStore.head}. */
  head(key: string, options?: CallOptions): Promise<ObjectInfo | null> {
    return Promise.resolve().then(() => {
      this.#check();
      return this.#inner.head(key, options);
    });
  }

  /** See {@link ObjectStore.put}. */
  put(key: string, body: PutBody, mode: PutMode, options?: PutOptions): Promise<ObjectInfo> {
    return Promise.resolve().then(() => {
      this.#check();
      return this.#inner.put(key, body, mode, options);
    });
  }

  /** See {@link ObjectStore.getStream}. */
  getStream(key: string, options?: CallOptions): Promise<GetStreamResult> {
    return Promise.resolve().then(() => {
      this.#check();
      if (this.#inner.getStream) return this.#inner.getStream(key, options);
      return this.#inner.get(key, options).then(({ body, ...info }) => ({
        ...info,
        body: new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(body);
            c.close();
          },
        }),
      }));
    });
  }

  /** See {@link ObjectStore.delete}. */
  delete(key: string, options?: DeleteOptions): Promise<void> {
    return Promise.resolve().then(() => {
      this.#check();
      return this.#inner.delete(key, options);
    });
  }

  /** See {@link ObjectStore.list}. */
  async *list(prefix: string, options?: ListOptions): AsyncIterable<readonly ObjectInfo[]> {
    this.#check();
    for await (const page of this.#inner.list(prefix, options)) {
      this.#check();
      yield page;
    }
  }
}
