/**
 * Reads of other namespaces of the datastore, as the existing extensions
 * make them: their catalog exports (`swamp datastore catalog pull
 * --namespaces a,b`) and one file of theirs (the tool's queries across
 * namespaces). Neither binds this service's namespace, writes anything or
 * goes through a cache: the bytes go to the caller.
 *
 * - {@link pullForeignCatalogs} reads `<ns>/.catalog-export.json` of each
 *   namespace named. A namespace without one is left out, as the tool
 *   expects; one whose export is not a JSON array is left out with a
 *   warning (`foreign_catalog_unreadable`) naming it. A namespace name that
 *   is not a namespace slug is refused (`invalid_config`), so that a typo
 *   never passes for a namespace with nothing published; a store that
 *   cannot be read fails the call after the retries, never passes for one
 *   either.
 * - {@link fetchForeignContent} reads `<ns>/<relPath>`; `null` when absent.
 *   An absolute path, one with an empty, `.` or `..` segment, and one of the
 *   layout's own objects (`_control/`, `_index/`, a lock, Sluice's records)
 *   are refused (`unsafe_path`).
 *
 * @module
 */
import { SluiceError, UnsafePathError } from "../../sync/errors.ts";
import type { SluiceEmitter } from "../../sync/events.ts";
import { isSafeRelPath } from "../../sync/paths.ts";
import { isLocalOnly } from "../../sync/transfer/bucket_layout.ts";
import { isNamespaceSlug } from "./namespaces.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import type { RetryPolicy } from "../../sync/retry.ts";
import { getOrNull } from "../../sync/transfer/index_io.ts";

/** The warning code of an export left out because it is not a JSON array of rows. */
export const FOREIGN_CATALOG_UNREADABLE = "foreign_catalog_unreadable";

/** A namespace's catalog export as the tool takes it: its rows, opaque here. */
export interface ForeignCatalog {
  readonly namespace: string;
  readonly rows: unknown[];
}

function checkNamespace(ns: string): void {
  if (typeof ns === "string" && isNamespaceSlug(ns)) return;
  throw new SluiceError(
    "invalid_config",
    `${
      JSON.stringify(ns)
    } is not a namespace name (lowercase letters, digits and inner dashes, at most 64 characters). Nothing was read. Check the namespace names given (\`swamp datastore namespace list\` lists them).`,
  );
}

/**
 * The catalog exports of `namespaces`, in their order, leaving out those
 * that have none or an unreadable one (see the module doc).
 *
 * @example
 * ```ts
 * import { pullForeignCatalogs } from "./foreign.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * import { DEFAULT_RETRY } from "../../sync/retry.ts";
 * import { createEmitter } from "../../sync/events.ts";
 * const store = new InMemoryStore();
 * store.seed("dev/.catalog-export.json", "[]");
 * await pullForeignCatalogs(store, ["dev", "qa"], DEFAULT_RETRY, createEmitter());
 * // [{ namespace: "dev", rows: [] }]
 * ```
 */
export async function pullForeignCatalogs(
  store: ObjectStore,
  namespaces: readonly string[],
  retry: RetryPolicy,
  events: SluiceEmitter,
  signal?: AbortSignal,
): Promise<ForeignCatalog[]> {
  for (const ns of namespaces) checkNamespace(ns);
  const out: ForeignCatalog[] = [];
  for (const ns of namespaces) {
    const key = `${ns}/.catalog-export.json`;
    const body = (await getOrNull(store, key, { retry, signal }))?.body;
    if (body === undefined) continue;
    let rows: unknown;
    try {
      rows = JSON.parse(new TextDecoder().decode(body));
    } catch {
      rows = undefined;
    }
    if (!Array.isArray(rows)) {
      events.emit("warning", {
        code: FOREIGN_CATALOG_UNREADABLE,
        message:
          `The catalog export of namespace ${ns} (${key}) is not a JSON array of rows; it was left out, and nothing was changed. Its own repository writes it again at its next push.`,
        path: key,
      });
      continue;
    }
    out.push({ namespace: ns, rows });
  }
  return out;
}

/**
 * The bytes of `relPath` in namespace `namespace`; `null` when absent.
 *
 * @example
 * ```ts
 * import { fetchForeignContent } from "./foreign.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * import { DEFAULT_RETRY } from "../../sync/retry.ts";
 * const store = new InMemoryStore();
 * store.seed("dev/data/t/m/d/1/raw", "hi");
 * await fetchForeignContent(store, "dev", "data/t/m/d/1/raw", DEFAULT_RETRY); // the bytes of "hi"
 * ```
 */
export async function fetchForeignContent(
  store: ObjectStore,
  namespace: string,
  relPath: string,
  retry: RetryPolicy,
  signal?: AbortSignal,
): Promise<Uint8Array | null> {
  checkNamespace(namespace);
  if (!isSafeRelPath(relPath)) {
    throw new UnsafePathError(
      relPath,
      "not a path inside a namespace (a relative slash path with no empty, `.` or `..` segment); nothing was read",
    );
  }
  if (isLocalOnly(relPath)) {
    throw new UnsafePathError(
      relPath,
      "one of the layout's own objects (its index, control plane, locks or Sluice's records), not a file of the namespace; nothing was read",
    );
  }
  return (await getOrNull(store, `${namespace}/${relPath}`, { retry, signal }))?.body ?? null;
}
