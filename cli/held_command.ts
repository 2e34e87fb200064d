/**
 * `sluice held [<dir>…] [--keep | --discard]`: the data versions a run
 * refused for losing its model lock left held, because they could not be
 * told apart from another run's (`erasure_refused`): listed, or resolved.
 * `--keep` releases them for the next push (they are this cache's run's
 * after all); `--discard` erases them as the refusal would have (the cache
 * copies, the objects that run uploaded, its `latest` markers recomputed),
 * but for their files published on the datastore already, which stay there
 * and in the cache (a version published is the datastore's).
 * Nothing else resolves them: until then every push leaves them out.
 *
 * @module
 */
import { Command } from "commander";
import { publishedFiles, readErasureJournal, resolveHeldVersions } from "../middleware/erasure.ts";
import { SluiceError } from "../sync/errors.ts";
import { action, type RunState, withCommonOptions, withSession } from "./command_kit.ts";
import { type CliIo, type Output, plural, shellWord, UsageError } from "./output.ts";
import { cacheRel } from "./cache_paths.ts";
import { endpointFields } from "./store_url.ts";

/** The way out of a held version, as messages name it. */
export function heldHint(dirs: readonly string[]): string {
  const named = dirs.length === 1 ? shellWord(dirs[0]) : "<dir>…";
  return `\`sluice held ${named} --keep\` (publish it with the next push) or \`--discard\` (erase it)`;
}

/** Registers `held`. */
export function heldCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("held")
      .description(
        "list the data versions a run refused for losing its model lock left held out of every push, or resolve them",
      )
      .argument("[dirs...]", "held version directories, as `sluice held` lists them")
      .option("--keep", "release them: the next push publishes them")
      .option(
        "--discard",
        "erase them: the cache copies and what that run uploaded (files of theirs published on the datastore already stay)",
      )
      .addHelpText(
        "after",
        "\nA run refused for losing its model lock has its versions erased, but where one cannot be told apart from another run's (the same model written under another lock meanwhile) nothing is deleted: it is held out of every push until resolved here.\n\nExamples:\n  sluice held\n  sluice held data/shell/cmd/m1/out/2 --discard\n  sluice held data/shell/cmd/m1/out/2 --keep",
      ),
  ).action(action(io, state, "held", async (out: Output, cmd, dirs: string[]) => {
    const o = cmd.opts<{ keep?: boolean; discard?: boolean }>();
    if (o.keep && o.discard) {
      throw new UsageError(
        "give one of --keep (publish them with the next push) or --discard (erase them), not both; nothing was changed.",
      );
    }
    const decision = o.keep ? "keep" : o.discard ? "discard" : undefined;
    if (decision && dirs.length === 0) {
      throw new UsageError(
        `--${decision} takes the held directories to resolve (\`sluice held\` lists them); nothing was changed.`,
      );
    }
    if (!decision && dirs.length > 0) {
      throw new UsageError(
        `give --keep (publish ${
          dirs.join(", ")
        } with the next push) or --discard (erase them); nothing was changed.`,
      );
    }
    return await withSession(cmd, io, out, async (s) => {
      const journal = await readErasureJournal(s.service.cache);
      const held = journal.held.flatMap((r) => r.dirs);
      if (!decision) {
        // Held versions are work left to do: exit 2, said as the outcome.
        const outcome = held.length === 0 ? { code: "ok", exitCode: 0 } : {
          code: "versions_held",
          exitCode: 2,
          message: `${held.length} data version${
            held.length === 1 ? " is" : "s are"
          } held out of every push; run ${heldHint(held)}.`,
        };
        out.result("held", {
          ...endpointFields(s.spec, s.store),
          cacheDir: s.cacheDir,
          held: held.map((dir) => ({
            dir,
            reason: journal.held.flatMap((r) => r.problems).find((p) => p.dir === dir)?.reason,
          })),
          outcome,
        });
        if (held.length === 0) {
          out.say("No data version is held.");
          return 0;
        }
        out.say(`Held out of every push (${held.length}):`);
        for (const run of journal.held) {
          for (const d of run.dirs) {
            const why = run.problems.find((p) => p.dir === d)?.reason;
            out.say(`  ${d}${why ? `  (${why})` : ""}`);
          }
        }
        out.say(
          `Each was written by a run refused for losing its model lock that could not be told apart from another run's. Look at each, then run ${
            heldHint(held)
          }.`,
        );
        return 2;
      }
      const wanted = dirs.map((d) => cacheRel(s.service, d));
      const unknown = wanted.filter((d) => !held.includes(d));
      if (unknown.length > 0) {
        throw new SluiceError(
          "not_found",
          `${unknown.join(", ")} ${
            unknown.length === 1 ? "is" : "are"
          } not held; nothing was changed. ${
            held.length ? `Held now: ${held.join(", ")}.` : "No data version is held."
          }`,
        );
      }
      const files = (await Promise.all(wanted.map((d) => s.service.cache.listFiles(d)))).flat();
      // Files of theirs synced with the datastore that the run deleted here:
      // a change of the run's, which a release leaves for the next push.
      const deletedHere = s.service.state.syncedPaths().filter((p) =>
        wanted.some((d) => p.startsWith(`${d}/`)) && !files.includes(p)
      );
      const resolved = await resolveHeldVersions(
        {
          cache: s.service.cache,
          state: s.service.state,
          store: s.store,
          signal: io.signal,
          config: s.service.config,
          clock: s.service.clock,
        },
        wanted,
        decision,
      );
      // Files of theirs published on the datastore already stay, whichever
      // way (a discard keeps them in the cache too, a change of the run's put
      // back): said, so that no one takes a discard for their deletion.
      const published = await publishedFiles(s.service.cache, s.service.state, wanted);
      const unpublished = files.some((f) => !published.includes(f));
      out.result("held", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        decision,
        resolved,
        published,
      });
      // A run's `latest` marker is resolved with its versions: told apart.
      const versions = resolved.filter((d) => !d.endsWith("/latest")).length;
      const markers = resolved.length - versions;
      const what = `${plural(versions, "held version")}${
        markers ? ` and ${plural(markers, "latest marker")} naming them` : ""
      }`;
      const it = versions === 1 ? "it" : "them";
      const pub = published.length === 1;
      const publishedNote = `${published.join(", ")} ${
        pub ? "is" : "are"
      } published on the datastore already`;
      if (decision === "keep") {
        const left = unpublished || deletedHere.length > 0 || markers > 0 ||
          published.length === 0;
        out.say(
          left
            ? `Released ${what}: the next push publishes ${
              resolved.length === 1 ? "it" : "them"
            } (run \`sluice push\`)${
              deletedHere.length
                ? `, with ${it} the deletion of ${
                  deletedHere.join(", ")
                }, deleted here by that run (a push naming ${it} deletes ${
                  deletedHere.length === 1 ? "it" : "them"
                } on the datastore: \`sluice push ${
                  wanted.map(shellWord).join(" ")
                }\`; a push of the whole cache never deletes)`
                : ""
            }${
              published.length
                ? `; ${publishedNote}, and stay${pub ? "s" : ""} as ${pub ? "it is" : "they are"}`
                : ""
            }.`
            : `Released ${what}: ${publishedNote}; nothing of ${it} is left for a push to publish.`,
        );
        return 0;
      }
      // A marker is never erased here: recomputed from the versions left (or removed when none is).
      const markerNote = markers
        ? `; ${
          plural(markers, "latest marker")
        } naming ${it} no longer held, recomputed from the versions left here`
        : "";
      out.say(
        published.length === 0
          ? `Erased ${
            plural(versions, "held version")
          }: the cache copies, and what that run uploaded of ${it}${markerNote}.`
          : `Discarded ${plural(versions, "held version")}: ${publishedNote}, the datastore's ${
            pub ? "copy" : "copies"
          }, and stay${
            pub ? "s" : ""
          } there and in the cache (nothing published is deleted; to take ${
            pub ? "it" : "them"
          } off the datastore, remove ${pub ? "it" : "them"} from the cache and push)${
            unpublished
              ? `; the rest of ${it} was erased: the cache copies, and what that run uploaded`
              : ""
          }${markerNote}.`,
      );
      return 0;
    });
  }));
}
