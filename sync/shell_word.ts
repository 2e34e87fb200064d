/**
 * One word of a command line, quoted for a POSIX shell: what messages print
 * as a command to run (the command line's own hints, and a datastore
 * extension's for its users).
 *
 * @module
 */

/**
 * One word as a POSIX shell reads it: as it is when it holds only safe
 * characters, else single-quoted (a store URL's `?` and `&` included).
 *
 * @example
 * ```ts
 * import { shellWord } from "./shell_word.ts";
 * shellWord("s3://b/p?endpoint=http://127.0.0.1:9000"); // "'s3://b/p?endpoint=http://127.0.0.1:9000'"
 * ```
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
