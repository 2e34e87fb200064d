/**
 * `sluice index migrate`: moves the bucket's index from the v1 index object
 * to v2 shards (what `swamp datastore migrate-index` does), under the global
 * datastore lock. See `sync/transfer/migrate_index.ts`.
 *
 * @module
 */
import { Command } from "commander";
import { migrateIndex } from "../sync/service/migrate.ts";
import { action, type RunState, withCommonOptions, withSession } from "./command_kit.ts";
import { globalLockOf } from "./session.ts";
import { type CliIo, type Output, plural, shellWord } from "./output.ts";
import { endpointFields, storeUrl } from "./store_url.ts";
import { SluiceError } from "../sync/errors.ts";
import { headIndex } from "../sync/transfer/remote_index.ts";
import { isLocalOnly } from "../sync/transfer/bucket_layout.ts";
import { sayingGlobalLockWait } from "../sync/locks/global_lock_wait.ts";

/** Registers `index` and its subcommand `migrate`. */
export function indexCommand(io: CliIo, state: RunState): Command {
  const index = new Command("index").description("manage the bucket's remote index");
  index.addCommand(
    withCommonOptions(
      new Command("migrate")
        .description(
          "move the index from the v1 index object to v2 shards under the global lock (once; a v2 bucket is left as it is)",
        )
        .addHelpText(
          "after",
          "\nOn v2, writers of different models update different shards, and a one-file push reads and writes only its shard and the meta. Clients that only read the v1 index object no longer see new writes: move every client of the bucket to a version that reads v2 first.\n\nExample:\n  sluice index migrate --cache .cache --store 's3://my-bucket?endpoint=http://127.0.0.1:9000'",
        ),
    ).action(action(io, state, "index migrate", async (out: Output, cmd) => {
      await withSession(cmd, io, out, async (s) => {
        // Nothing at all there (no index, no object): no index to move, and
        // most often a mistyped bucket or prefix; never started as a v2 one.
        if (await headIndex(s.store, s.service.config.retry, io.signal) === null) {
          // Sluice's own objects (a lock, a clock reading, a probe) are no
          // content; shards are (a meta gone bad is no empty datastore).
          let empty = true;
          for await (const page of s.store.list("", { signal: io.signal })) {
            if (page.some((o) => !isLocalOnly(o.key) || o.key.startsWith("_index/"))) {
              empty = false;
              break;
            }
          }
          if (empty) {
            throw new SluiceError(
              "not_found",
              `Nothing is at ${s.store.endpoint}: no index and no object, so there is no index to move (is the bucket or prefix mistyped?). Nothing was written. A new datastore starts with its first push (\`sluice push --init --store ${
                shellWord(storeUrl(s.spec))
              }\`); run this after it to lay it out in v2 shards.`,
            );
          }
        }
        const lock = globalLockOf(s);
        const r = await lock.withLock(
          () => migrateIndex(s.service, io.signal, lock),
          await sayingGlobalLockWait(lock, s.events, "the index move waits for it", io.signal),
        );
        out.result("index migrate", {
          ...endpointFields(s.spec, s.store),
          migrated: r.migrated,
          entries: r.entries,
          partitions: r.partitions.length,
          commitSeq: r.commitSeq,
        });
        // A directory that is no cache records no store (see `recordStore`):
        // the commands a note names need the store named too.
        const after = s.storeKept ? [] : [
          `(The cache ${s.cacheDir} records no store: name it with --store in any command above, or make it a cache with \`sluice pull --init --store ${
            shellWord(storeUrl(s.spec))
          } --cache ${shellWord(s.cacheDir)}\`.)`,
        ];
        out.say(
          r.migrated
            ? `Moved the index of ${s.store.endpoint} to v2: ${
              plural(r.entries, "entry", "entries")
            } in ${plural(r.partitions.length, "shard")} (commitSeq ${r.commitSeq}).`
            : `The index of ${s.store.endpoint} is v2 already (commitSeq ${r.commitSeq}); its shards and meta were left as they are (the v1 index object, where there is one, was written again with the same entries, so that existing clients' clones last synced on v1 read the shards).`,
        );
        for (const line of after) out.say(line);
      });
    })),
  );
  return index;
}
