/**
 * `sluice theirs <path> [--out <file>]`: the datastore's copy of a path with
 * an open conflict, to merge from before `sluice resolve <path> --merged`.
 * Printed (text), or written whole to `--out` (any bytes), never into the
 * cache: nothing of the cache, its state or the conflict changes.
 *
 * @module
 */
import { Command } from "commander";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { sha256Hex } from "../sync/hash.ts";
import { SluiceError } from "../sync/errors.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import { action, type RunState, withCommonOptions, withSession } from "./command_kit.ts";
import type { CliIo, Output } from "./output.ts";
import { conflictPaths } from "./cache_paths.ts";

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
        "write the copy to this file (outside the cache) instead of printing it",
      )
      .addHelpText(
        "after",
        "\nPrinted as text; a copy that is not UTF-8 text needs --out. Then edit your copy in the cache into the merge and publish it with `sluice resolve <path> --merged`.\n\nExamples:\n  sluice theirs config/app.yaml\n  sluice theirs data/report.bin --out /tmp/report.theirs",
      ),
  ).action(action(io, state, "theirs", async (out: Output, cmd, path: string) => {
    const o = cmd.opts<{ out?: string }>();
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
      const file = o.out === undefined ? undefined : resolve(io.cwd ?? Deno.cwd(), o.out);
      if (file !== undefined && await inside(s.cacheDir, file)) {
        throw new SluiceError(
          "unsafe_path",
          `--out ${o.out} lies inside the cache ${s.cacheDir}, where a push would take it for a file of yours; nothing was written. Choose a file outside the cache.`,
        );
      }
      if (rec.theirs === null) {
        out.say(
          `The datastore's side of ${rel} is a deletion: there is no copy to show. \`sluice resolve ${rel} --theirs\` takes the deletion (your copy is set aside); \`--mine\` publishes your copy again.`,
        );
        out.result("theirs", { endpoint: s.store.endpoint, path: rel, deleted: true });
        return 0;
      }
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
      if (moved) {
        out.warn({
          code: "theirs_changed",
          message:
            `${rel} changed on the datastore since the conflict was recorded (version ${rec.theirs.version} then, ${got.version} now); this is the newer copy. A resolution records the conflict again against it: run \`sluice pull\` first.`,
          path: rel,
        });
      }
      let shown: string | undefined;
      if (file !== undefined) {
        await Deno.writeFile(file, got.body);
        out.say(
          `Wrote the datastore's copy of ${rel} (version ${got.version}, ${got.body.length} B) to ${file}.`,
        );
      } else {
        let text: string;
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(got.body);
        } catch {
          throw new SluiceError(
            "invalid_config",
            `The datastore's copy of ${rel} is not UTF-8 text; nothing was printed. Write it to a file: \`sluice theirs ${rel} --out <file outside the cache>\`.`,
          );
        }
        if (out.json) shown = text;
        else io.stdout(text);
      }
      out.result("theirs", {
        endpoint: s.store.endpoint,
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
