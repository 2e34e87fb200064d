/**
 * `file://` store URLs: `file:///abs/dir`, `file://localhost/abs/dir` or
 * `file://./rel/dir` (relative to a given cwd), percent-decoded, parsed into
 * a {@link FileStoreSpec}.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import type { FileStoreSpec } from "./store_spec.ts";
import { bad } from "./store_url_errors.ts";

/** Options of {@link parseStoreUrl}. */
export interface ParseStoreUrlOptions {
  /** Directory that relative `file://./…` URLs resolve against; default the process's cwd. */
  readonly cwd?: string;
}

/**
 * Parses a `file://` URL (scheme already lower-cased); throws `ConfigError`
 * (exit 78) naming what is wrong.
 *
 * @example
 * ```ts
 * import { parseFile } from "./file_store_url.ts";
 * parseFile("file://./store", { cwd: "/work" }); // { kind: "file", root: "/work/store" }
 * ```
 */
export function parseFile(url: string, options: ParseStoreUrlOptions): FileStoreSpec {
  const rest = url.slice("file://".length);
  if (/[?#]/.test(rest)) {
    throw bad("", "a file:// URL without query parameters or fragment (write ? as %3F, # as %23)");
  }
  let path: string;
  if (rest.startsWith("/")) path = rest;
  else if (rest.startsWith("localhost/")) path = rest.slice("localhost".length);
  else if (rest === "." || rest.startsWith("./") || rest.startsWith("../")) path = rest;
  else {
    throw bad(
      "",
      `a file:// URL naming a local directory (file:///abs/dir or file://./rel/dir), got ${
        JSON.stringify(url)
      }`,
    );
  }
  try {
    path = decodeURIComponent(path);
  } catch {
    throw bad("", "a validly percent-encoded path");
  }
  if (path.includes("\0")) throw bad("", "a path without NUL characters");
  const root = isAbsolute(path) ? resolve(path) : resolve(options.cwd ?? Deno.cwd(), path);
  return { kind: "file", root };
}
