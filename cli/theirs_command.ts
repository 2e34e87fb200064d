/**
 * `sluice theirs <path> [--out <file>]`: the datastore's copy of a path with
 * an open conflict, to merge from before `sluice resolve <path> --merged`.
 * Printed (text), or written whole to `--out` (any bytes; a file there is
 * replaced only with `--force`), never into the cache: nothing of the
 * cache, its state or the conflict changes.
 *
 * @module
 */
import { Command } from "commander";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { sha256Hex } from "../sync/hash.ts";
import { SluiceError } from "../sync/errors.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { readWriterId, WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { atomicWriteAsync, type TargetCheck } from "../sync/transfer/atomic_write.ts";
import { action, type RunState, withCommonOptions, withSession } from "./command_kit.ts";
import { type CliIo, type Output, shellWord, UsageError } from "./output.ts";
import { conflictPaths } from "./cache_paths.ts";
import { endpointFields } from "./store_url.ts";

/** True when `file` is `dir` or lies under it. */
function under(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * True when `file` lies in the cache `dir`, also through a link (on either
 * side): the real path of its nearest existing directory is compared with
 * the cache's.
 */
async function inside(dir: string, file: string): Promise<boolean> {
  if (under(dir, file)) return true;
  const realDir = await Deno.realPath(dir).catch(() => dir);
  let at = dirname(file);
  let rest = basename(file);
  for (;;) {
    try {
      return under(realDir, join(await Deno.realPath(at), rest));
    } catch {
      if (dirname(at) === at) return false;
      rest = join(basename(at), rest);
      at = dirname(at);
    }
  }
}

/** What is at a path: a directory (also through a link), another thing, or nothing. */
async function kindAt(path: string): Promise<"dir" | "other" | "missing"> {
  const at = await Deno.lstat(path).catch(() => null);
  if (at === null) return "missing";
  if (at.isDirectory) return "dir";
  if (at.isSymlink && (await Deno.stat(path).catch(() => null))?.isDirectory) return "dir";
  return "other";
}

/** `--out` as given, and the file it names. */
interface OutFile {
  /** As given on the command line. */
  readonly given: string;
  /** Absolute. */
  readonly file: string;
}

/**
 * Refuses an `--out` that cannot take the copy, before the datastore is
 * asked for it: a directory, a file in a directory that does not exist (or
 * is no directory), and, without `--force`, a file that is there already.
 */
async function checkOut(o: OutFile, rel: string, force: boolean): Promise<void> {
  const kind = await kindAt(o.file);
  if (kind === "dir") throw outIsDir(o, rel);
  if (kind === "other" && !force) throw outExists(o, rel);
  if (kind === "missing") {
    const parent = await kindAt(dirname(o.file));
    if (parent !== "dir") {
      throw outNoDir(o, parent === "missing" ? "does not exist" : "is no directory");
    }
  }
}

/** The refusal of an `--out` that is a directory. */
function outIsDir(o: OutFile, rel: string): SluiceError {
  return new SluiceError(
    "invalid_config",
    `--out ${o.given} is a directory (${o.file}); nothing was written, and the directory was left as it is. Pass --out the file to write, e.g. --out ${
      shellWord(join(o.file, basename(rel)))
    }.`,
  );
}

/** The refusal of an `--out` file that is there already. */
function outExists(o: OutFile, rel: string): UsageError {
  return new UsageError(
    `--out ${o.given} names a file that exists (${o.file}); nothing was written, and the file was kept as it is. Pass --out another path, or add --force to replace it: \`sluice theirs ${
      shellWord(rel)
    } --out ${shellWord(o.given)} --force\`.`,
  );
}

/** The refusal of an `--out` in a directory that is missing (`what`: "does not exist"). */
function outNoDir(o: OutFile, what: string): SluiceError {
  const parent = dirname(o.file);
  return new SluiceError(
    "invalid_config",
    `--out ${o.given} names a file in ${parent}, which ${what}; nothing was written. Create the directory first (\`mkdir -p ${
      shellWord(parent)
    }\`), or pass --out a file in a directory that exists.`,
  );
}

/**
 * Writes the copy to `--out` whole: a temp file beside it, then a rename
 * (without `--force` a link, which never replaces a file that came there
 * meanwhile), so a failed write never leaves part of the copy there.
 * Resolves true when a file there was replaced.
 */
async function writeOut(
  o: OutFile,
  rel: string,
  body: Uint8Array,
  force: boolean,
): Promise<boolean> {
  let replaced = false;
  const check: TargetCheck = Object.assign((old: Deno.FileInfo | null) => {
    if (old === null) return;
    if (old.isDirectory) throw outIsDir(o, rel);
    if (!force) throw outExists(o, rel);
    replaced = true;
  }, { nothing: !force });
  try {
    await atomicWriteAsync(o.file, body, true, check);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw outNoDir(o, "does not exist");
    if (e instanceof Deno.errors.NotADirectory) throw outNoDir(o, "is no directory");
    if (e instanceof Deno.errors.IsADirectory) throw outIsDir(o, rel);
    if (e instanceof Deno.errors.PermissionDenied) {
      throw new SluiceError(
        "invalid_config",
        `--out ${o.given}: ${
          dirname(o.file)
        } may not be written to (permission denied); nothing was written, and what was there was left as it is. Pass --out a file in a directory you may write to.`,
        { cause: e },
      );
    }
    throw e;
  }
  return replaced;
}

/** Registers `theirs`. */
export function theirsCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("theirs")
      .description(
        "show the datastore's copy of a conflicted path, to merge from (nothing in the cache changes)",
      )
      .argument("<path>", "a conflicted cache path, as `sluice status` lists it")
      .option(
        "--out <file>",
        "write the copy to this file (outside the cache) instead of printing it; a file there is refused unless --force",
      )
      .option("--force", "with --out: replace the file there")
      .addHelpText(
        "after",
        "\nPrinted as text; a copy that is not UTF-8 text needs --out. Then edit your copy in the cache into the merge and publish it with `sluice resolve <path> --merged`.\n\nExamples:\n  sluice theirs config/app.yaml\n  sluice theirs data/report.bin --out /tmp/report.theirs\n  sluice theirs data/report.bin --out /tmp/report.theirs --force   # replace that file",
      ),
  ).action(action(io, state, "theirs", async (out: Output, cmd, path: string) => {
    const o = cmd.opts<{ out?: string; force?: boolean }>();
    return await withSession(cmd, io, out, async (s) => {
      const rels = conflictPaths(s.service, [path]);
      const rec = rels.length === 1
        ? s.service.conflicts().find((c) => c.path === rels[0])
        : undefined;
      if (!rec) {
        throw new SluiceError(
          "not_found",
          `${path} holds ${rels.length} open conflicts (${rels.slice(0, 3).join(", ")}${
            rels.length > 3 ? ", …" : ""
          }); nothing was shown. Name one of them, as \`sluice status\` lists it.`,
        );
      }
      const rel = rec.path;
      const to: OutFile | undefined = o.out === undefined
        ? undefined
        : { given: o.out, file: resolve(io.cwd ?? Deno.cwd(), o.out) };
      const file = to?.file;
      if (file !== undefined && await inside(s.cacheDir, file)) {
        throw new SluiceError(
          "unsafe_path",
          `--out ${o.out} lies inside the cache ${s.cacheDir}, where a push would take it for a file of yours; nothing was written. Choose a file outside the cache.`,
        );
      }
      if (rec.theirs === null) {
        // No copy to show or write: an error, so that `theirs > file` never
        // takes this sentence for their copy.
        throw new SluiceError(
          "not_found",
          `The datastore's side of ${rel} is a deletion: there is no copy to ${
            to === undefined ? "show" : "write"
          }, and nothing was ${
            to === undefined ? "printed" : `written to ${to.given}`
          }. \`sluice resolve ${
            shellWord(rel)
          } --theirs\` takes the deletion (your copy is set aside); \`--mine\` publishes your copy again.`,
        );
      }
      if (to !== undefined) await checkOut(to, rel, o.force ?? false);
      const got = await getOrNull(s.store, rel, {
        retry: s.service.config.retry,
        signal: io.signal,
      });
      if (got === null) {
        throw new SluiceError(
          "not_found",
          `The datastore holds no object at ${rel} any more (it held version ${rec.theirs.version} when the conflict was recorded); nothing was shown. Run \`sluice pull\` to see what changed, then \`sluice status\`.`,
        );
      }
      // By the bytes where the record has their hash (another client's entry
      // names no version of the store's), else by the version.
      const moved = rec.theirs.hash
        ? (await sha256Hex(got.body)) !== rec.theirs.hash
        : got.version !== rec.theirs.version;
      // This cache's own upload over theirs (a resolution cut off before its
      // commit): never shown as theirs, which is no longer there.
      const own = moved ? await readWriterId(s.service.cache) : null;
      if (own !== null && got.metadata?.[WRITER_METADATA] === own) {
        throw new SluiceError(
          "not_found",
          `The datastore no longer holds theirs of ${rel} (version ${rec.theirs.version}): a resolution of this conflict, cut off before its commit, wrote this cache's own copy over it (version ${got.version}, not named by the index yet), so there is no copy of theirs to ${
            to === undefined ? "show" : "write"
          }; nothing was ${
            to === undefined ? "printed" : `written to ${to.given}`
          }. Their bytes may still be in the cache of the clone that published them. Run \`sluice resolve ${
            shellWord(rel)
          } --theirs\` to take what the datastore holds (your copy) and finish publishing it, or \`sluice resolve ${
            shellWord(rel)
          } --mine\` to publish the copy you have here.`,
        );
      }
      if (moved) {
        out.warn({
          code: "theirs_changed",
          message:
            `${rel} changed on the datastore since the conflict was recorded (version ${rec.theirs.version} then, ${got.version} now); this is the newer copy. A resolution records the conflict again against it: run \`sluice pull\` first.`,
          path: rel,
        });
      }
      let shown: string | undefined;
      if (to !== undefined) {
        const replaced = await writeOut(to, rel, got.body, o.force ?? false);
        out.say(
          `Wrote the datastore's copy of ${rel} (version ${got.version}, ${got.body.length} B) to ${to.file}${
            replaced ? ", replacing the file there (--force)" : ""
          }.`,
        );
      } else {
        let text: string;
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(got.body);
        } catch {
          throw new UsageError(
            `The datastore's copy of ${rel} is not UTF-8 text; nothing was printed. Write it to a file: \`sluice theirs ${
              shellWord(rel)
            } --out <file outside the cache>\`.`,
          );
        }
        if (out.json) shown = text;
        else io.stdout(text);
      }
      out.result("theirs", {
        ...endpointFields(s.spec, s.store),
        path: rel,
        version: got.version,
        size: got.body.length,
        changedSinceRecorded: moved,
        ...(file !== undefined ? { out: file } : {}),
        ...(shown !== undefined ? { text: shown } : {}),
      });
      return 0;
    });
  }));
}
