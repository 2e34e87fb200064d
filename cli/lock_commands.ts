/**
 * `sluice lock list | inspect | release --force` and
 * `sluice lockfile add | remove | retry | repair`.
 *
 * @module
 */
import { Command } from "commander";
import { preview, SluiceError } from "../sync/errors.ts";
import {
  type LockfileTxnResult,
  managedLockfilePath,
  readPendingLockfileDeltas,
  retryPendingLockfile,
  updateManagedLockfile,
} from "../sync/locks/lockfile_txn.ts";
import {
  describeLockfileChange,
  type LockfileChange,
  parseLockfile,
} from "../sync/locks/lockfile_change.ts";
import { getOrNull } from "../sync/transfer/index_io.ts";
import type { GetResult } from "../sync/ports.ts";
import {
  type LockfileRepairBase,
  type LockfileRepairResult,
  repairManagedLockfile,
} from "../sync/locks/lockfile_repair.ts";
import { releaseLock } from "../sync/locks/model_locks.ts";
import {
  action,
  requireFlag,
  type RunState,
  withCommonOptions,
  withSession,
} from "./command_kit.ts";
import {
  describeBroken,
  describeLock,
  inspectLock,
  listLocks,
  lockKeyFor,
  parseModel,
} from "./locks.ts";
import { type CliIo, formatBytes, type Output, plural } from "./output.ts";
import { lockBackendOf, type Session } from "./session.ts";
import { endpointFields } from "./store_url.ts";
import { statePath } from "../sync/transfer/cache.ts";
import { asideBeforeTxn, tellAside } from "./lockfile_local.ts";

/** Registers `lock` and its subcommands. */
export function lockCommand(io: CliIo, state: RunState): Command {
  const lock = new Command("lock").description("list, inspect and break datastore locks");

  lock.addCommand(
    withCommonOptions(
      new Command("list").description(
        "list lock objects (data/**/.lock, .datastore.lock, .locks/*) with their holders",
      ),
    ).action(action(io, state, "lock list", async (out: Output, cmd) => {
      await withSession(cmd, io, out, async (s) => {
        const locks = await listLocks(s.store, lockBackendOf(s), s.identity, {
          namespace: s.namespace,
          signal: io.signal,
        });
        out.result("lock list", { ...endpointFields(s.spec, s.store), locks });
        if (locks.length === 0) out.say(`No locks are held in ${s.store.endpoint}.`);
        else {
          out.say(`${plural(locks.length, "lock")} in ${s.store.endpoint}:`);
          for (const l of locks) out.say(`  ${describeLock(l)}`);
          if (locks.some((l) => l.stale)) {
            out.say("A stale lock is taken over by the next process that asks for it.");
          }
          out.say(
            "To break a lock whose holder is gone: `sluice lock release --force [--model type/id]`.",
          );
        }
      });
    })),
  );

  lock.addCommand(
    withCommonOptions(
      new Command("inspect")
        .description("show one lock: a model's (--model) or the global datastore lock")
        .option("--model <type/id>", "the model whose lock to show"),
    ).action(action(io, state, "lock inspect", async (out: Output, cmd) => {
      const { model } = cmd.opts<{ model?: string }>();
      await withSession(cmd, io, out, async (s) => {
        const key = lockKeyFor(model, s.namespace);
        const entry = await inspectLock(s.store, lockBackendOf(s), s.identity, key, {
          namespace: s.namespace,
          signal: io.signal,
        });
        out.result("lock inspect", {
          ...endpointFields(s.spec, s.store),
          key,
          held: !!entry,
          lock: entry,
        });
        out.say(entry ? describeLock(entry) : `No lock at ${key}: it is free.`);
      });
    })),
  );

  lock.addCommand(
    withCommonOptions(
      new Command("release")
        .description(
          "breakglass: delete a model's lock (--model) or the global lock, whoever holds it",
        )
        .option("--model <type/id>", "the model whose lock to break (default: the global lock)")
        .option("--force", "confirm breaking a lock another process may still hold")
        .addHelpText(
          "after",
          "\nIf the holder is still running, its push is refused: under a model lock with model_lock_lost, the data versions it wrote discarded; under the global lock with global_lock_lost, the files it uploaded left unpublished and dirty.\n\nExample:\n  sluice lock release --force --model aws/ec2/web-1",
        ),
    ).action(action(io, state, "lock release", async (out: Output, cmd) => {
      const { model, force } = cmd.opts<{ model?: string; force?: boolean }>();
      const m = model === undefined ? undefined : parseModel(model);
      requireFlag(
        force,
        `lock release breaks a lock another process may still hold; nothing was changed. Check the holder with \`sluice lock inspect${
          m ? ` --model ${m}` : ""
        }\`, then add --force to confirm.`,
      );
      await withSession(cmd, io, out, async (s) => {
        const r = await releaseLock(s.service, {
          force: true,
          ...(m ? { model: m } : {}),
          ...(s.namespace ? { namespace: s.namespace } : {}),
        });
        if (!r.broken) {
          // Most often a mistyped model: never a success that did nothing.
          throw new SluiceError(
            "not_found",
            `No lock at ${r.key}; nothing was released. ${
              m ? "Check the model" : "The datastore's global lock is not held"
            } (\`sluice lock list\` lists the locks held now).`,
          );
        } else if (r.released) {
          out.result("lock release", { ...endpointFields(s.spec, s.store), ...r });
          out.say(describeBroken(r.key, m ? "model" : "global", r.broken));
        } else {
          throw new SluiceError(
            "precondition_failed",
            `The lock ${r.key} changed while it was being broken (renewed or taken by another process); nothing was deleted. Run \`sluice lock inspect\` and try again.`,
          );
        }
      });
    })),
  );
  return lock;
}

/** An example entry, shown in messages and help. */
const EXAMPLE_ENTRY = '{"version":"1.2.0"}';

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "string" ? "a string" : `a ${typeof v}`;
}

/**
 * Parses the `<entry>` argument of `lockfile add`: a JSON object (an
 * extension entry, e.g. `{"version":"1.2.0"}`); anything else is refused
 * with `invalid_config` before any lock is taken or anything is written.
 */
export function parseEntry(name: string, text: string): Record<string, unknown> {
  let value: unknown;
  let problem: string;
  try {
    value = JSON.parse(text);
    problem = kindOf(value);
  } catch {
    problem = "not valid JSON";
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  throw new SluiceError(
    "invalid_config",
    `The entry for ${name} must be a JSON object describing the extension, such as ${EXAMPLE_ENTRY}; got ${
      JSON.stringify(preview(text, 60))
    } (${problem}). Nothing was changed. Run \`sluice lockfile add ${name} '${EXAMPLE_ENTRY}'\` with the entry you mean (quote it for the shell).`,
  );
}

/** An extension's name as swamp names extensions: `@collective/name`, more `/segments` allowed. */
const EXTENSION_NAME = /^@[a-z0-9_-]+(\/[a-z0-9_-]+)+$/;

/**
 * The `<name>` of `lockfile add`: an extension name (`@collective/name`, in
 * lower-case letters, digits, hyphens and underscores, more `/segments`
 * allowed); anything else (a path, a space, capitals) is refused with
 * `invalid_config` before any lock is taken or anything is written.
 */
export function checkNewName(name: string): string {
  if (EXTENSION_NAME.test(name)) return name;
  throw new SluiceError(
    "invalid_config",
    `${
      JSON.stringify(preview(name, 60))
    } is no extension name: an entry of the lockfile is named @collective/name (lower-case letters, digits, hyphens and underscores, with more /segments allowed), e.g. @acme/ssh. Nothing was changed. Run \`sluice lockfile add @collective/name '${EXAMPLE_ENTRY}'\` with the name you mean.`,
  );
}

function checkName(name: string): string {
  if (name.trim() !== "") return name;
  throw new SluiceError(
    "invalid_config",
    `An extension name is needed (got an empty one). Nothing was changed. Run \`sluice lockfile remove @collective/name\` with the name of an entry of the lockfile.`,
  );
}

function reportTxn(out: Output, command: string, r: LockfileTxnResult, change?: LockfileChange) {
  out.result(command, { ...r });
  const what = change ? ` (${describeLockfileChange(change)})` : "";
  if (r.published) {
    out.say(
      `Published ${r.path}${what} at version ${r.version}${
        r.attempts > 1 ? ` after ${r.attempts} attempts` : ""
      }; it now has ${plural(Object.keys(r.entries).length, "entry", "entries")}.`,
    );
  } else out.say(`${r.path} already had this change${what}; nothing was written.`);
}

const REPAIR_BASE: Record<LockfileRepairBase, string> = {
  synced: "this cache's copy as last synced",
  local: "this cache's local copy",
  none:
    "nothing but the pending change (this cache holds no valid copy, so entries other checkouts had are not restored; a checkout whose cache holds a good copy can repair with more)",
};

function entryList(entries: Record<string, unknown>): string {
  const n = Object.keys(entries);
  const shown = n.slice(0, 10).join(", ") + (n.length > 10 ? ` and ${n.length - 10} more` : "");
  return `${plural(n.length, "entry", "entries")}${n.length ? ` (${shown})` : ""}`;
}

/** What `lockfile repair` found and did, for people. */
function reportRepair(out: Output, stateDir: string, r: LockfileRepairResult) {
  out.result("lockfile repair", { ...r });
  const p = r.problem;
  const change = r.pending
    ? `this cache's pending change (${describeLockfileChange(r.pending)})`
    : "no pending change";
  const kept = r.setAside.map((w) => statePath(stateDir, w)).join(", ");
  if (p) {
    out.say(
      `The datastore's copy of ${r.path} (version ${p.version}, ${
        formatBytes(p.size)
      }) is not a JSON object of entries: ${p.problem}. It begins ${JSON.stringify(p.preview)}.`,
    );
  } else {
    out.say(
      `The datastore's copy of ${r.path} is ${
        r.version ? "a JSON object" : "absent"
      }; there is nothing to repair.`,
    );
  }
  const base = REPAIR_BASE[r.base ?? "none"];
  if (r.outcome === "would_repair") {
    out.say(
      `A repair would keep those bytes in ${stateDir}/set-aside/ and replace them, with a compare-and-swap on version ${p?.version}, by ${base} with ${change}: ${
        entryList(r.entries)
      }. Nothing was written (dry run). Run \`sluice lockfile repair\` to do it.`,
    );
  } else if (r.outcome === "repaired") {
    out.say(
      `Kept those bytes in ${kept} and published ${r.path} at version ${r.version}: ${base} with ${change}; it now has ${
        entryList(r.entries)
      }.`,
    );
  } else if (r.outcome === "peer_repaired") {
    out.say(
      `Another writer replaced it with a valid copy while the repair ran; that copy was kept and only ${change} was applied to it, as in a normal transaction: ${r.path} is at version ${r.version} with ${
        entryList(r.entries)
      }. The malformed bytes are kept in ${kept}.`,
    );
  } else if (r.published) {
    out.say(
      `Published ${change} on it at version ${r.version}; it now has ${entryList(r.entries)}.`,
    );
  } else if (r.dryRun && r.pending) {
    out.say(
      `A repair would publish ${change} on it, as \`sluice lockfile retry\` does. Nothing was written (dry run).`,
    );
  } else if (r.pending) out.say(`It already holds ${change}; nothing was written.`);
  else out.say("No pending lockfile change in this cache; nothing was written.");
}

/**
 * Runs a lockfile transaction (`run`, publishing `change`) with a hand-edited
 * local copy of the lockfile set aside first (see `asideBeforeTxn`): told
 * after it, or put back when it fails (nothing was published; the view of
 * the pending change it wrote goes).
 */
async function asideAround<
  T extends { readonly entries: Readonly<Record<string, unknown>> } | null,
>(
  s: Session,
  out: Output,
  io: CliIo,
  change: LockfileChange,
  run: () => Promise<T>,
  remoteCopy?: () => Promise<GetResult | null>,
): Promise<T> {
  const path = managedLockfilePath(s.namespace);
  const aside = await asideBeforeTxn(s.service, path, io.signal, remoteCopy);
  let r: T;
  try {
    r = await run();
  } catch (e) {
    if (aside) {
      await s.service.cache.remove(path).catch(() => {});
      if (!s.service.cache.putBack(aside.location)) tellAside(out, s.service, path, aside, null);
    }
    throw e;
  }
  if (aside) tellAside(out, s.service, path, aside, r?.entries ?? {}, change);
  return r;
}

/** Registers `lockfile` and its subcommands. */
export function lockfileCommand(io: CliIo, state: RunState): Command {
  const lockfile = new Command("lockfile").description(
    "change the managed lockfile (config/upstream_extensions.json) through its transaction",
  );
  const txn = (cmd: Command, out: Output, command: string, change: LockfileChange) =>
    withSession(cmd, io, out, async (s) => {
      // Several names to remove, one of them not in the lockfile: most often
      // a typo, refused before anything is published (the rest with it).
      const removing = change.remove ?? [];
      const path = managedLockfilePath(s.namespace);
      // The datastore's copy, read once for both checks below (when either needs it).
      let read: Promise<GetResult | null> | undefined;
      const remoteCopy = () =>
        read ??= getOrNull(s.service.store, path, {
          retry: s.service.config.retry,
          signal: io.signal,
        });
      if (removing.length > 1) {
        const got = await remoteCopy();
        let held: Record<string, unknown> = {};
        try {
          held = got ? parseLockfile(got.body) : {};
        } catch {
          held = {}; // a malformed copy: the transaction says so
        }
        const pending = (await readPendingLockfileDeltas(s.service.cache))[path]?.set ?? {};
        const absent = removing.filter((n) =>
          !Object.hasOwn(held, n) && !Object.hasOwn(pending, n)
        );
        if (got && absent.length > 0 && absent.length < removing.length) {
          throw new SluiceError(
            "not_found",
            `${path} has no entry named ${absent.join(", ")}; nothing was published (${
              removing.filter((n) => !absent.includes(n)).join(", ")
            } included). Check the name${
              absent.length > 1 ? "s" : ""
            }, then run the command again. Its entries: ${Object.keys(held).join(", ") || "none"}.`,
          );
        }
      }
      const r = await asideAround(
        s,
        out,
        io,
        change,
        () =>
          updateManagedLockfile(s.service, change, {
            signal: io.signal,
            ...(s.namespace ? { namespace: s.namespace } : {}),
          }),
        remoteCopy,
      );
      // Removing a name the lockfile never had is most often a typo: say so, non-zero.
      const absent = (change.remove ?? []).filter((n) => !Object.hasOwn(r.entries, n));
      if (!r.published && absent.length === (change.remove ?? []).length && absent.length > 0) {
        const names = Object.keys(r.entries);
        throw new SluiceError(
          "not_found",
          r.version === null
            ? `The datastore has no ${r.path}, so it has no entry named ${
              absent.join(", ")
            }; nothing was written (no empty lockfile was created). Check the --store and namespace, or add an entry with \`sluice lockfile add <name> '${EXAMPLE_ENTRY}'\`.`
            : `${r.path} has no entry named ${
              absent.join(", ")
            }; nothing was published. Its entries: ${
              names.length ? names.join(", ") : "none"
            }. Check the name${absent.length > 1 ? "s" : ""}.`,
        );
      }
      reportTxn(out, command, r, change);
    });

  lockfile.addCommand(
    withCommonOptions(
      new Command("add")
        .description("add or replace one entry")
        .argument("<name>", "the extension name")
        .argument("<entry>", `the entry: a JSON object, e.g. '${EXAMPLE_ENTRY}'`)
        .addHelpText("after", `\nExample:\n  sluice lockfile add @acme/ssh '${EXAMPLE_ENTRY}'`),
    ).action(
      action(
        io,
        state,
        "lockfile add",
        (out: Output, cmd, name: string, entry: string) =>
          txn(cmd, out, "lockfile add", { set: { [checkNewName(name)]: parseEntry(name, entry) } }),
      ),
    ),
  );

  lockfile.addCommand(
    withCommonOptions(
      new Command("remove")
        .description("remove entries")
        .argument("<names...>", "the extension names"),
    ).action(
      action(
        io,
        state,
        "lockfile remove",
        (out: Output, cmd, names: string[]) =>
          txn(cmd, out, "lockfile remove", { remove: names.map(checkName) }),
      ),
    ),
  );

  lockfile.addCommand(
    withCommonOptions(
      new Command("retry").description("publish this cache's pending lockfile change"),
    ).action(action(io, state, "lockfile retry", async (out: Output, cmd) => {
      await withSession(cmd, io, out, async (s) => {
        const path = managedLockfilePath(s.namespace);
        const pending = (await readPendingLockfileDeltas(s.service.cache))[path] ?? {};
        const r = await asideAround(s, out, io, pending, () =>
          retryPendingLockfile(s.service, {
            signal: io.signal,
            ...(s.namespace ? { namespace: s.namespace } : {}),
          }));
        if (r) return reportTxn(out, "lockfile retry", r);
        out.result("lockfile retry", { pending: false });
        out.say("No pending lockfile change in this cache; nothing to publish.");
      });
    })),
  );

  lockfile.addCommand(
    withCommonOptions(
      new Command("repair")
        .description(
          "show what is wrong with the datastore's copy of the lockfile and republish it from this cache's last good copy and pending change",
        )
        .option("--dry-run", "only show the problem and what would be published; write nothing")
        .addHelpText(
          "after",
          "\nUnder the datastore's global lock, a copy that is not a JSON object of entries is kept in the cache's set-aside area (`sluice status` lists it) and replaced, with a compare-and-swap on its version, by this cache's lockfile with its pending change applied. If another writer replaced it with a valid copy meanwhile, that copy wins and only the pending change is applied to it. A readable copy is left alone (a pending change is published on it, as by `lockfile retry`).\n\nExamples:\n  sluice lockfile repair --dry-run --cache .cache\n  sluice lockfile repair --cache .cache",
        ),
    ).action(action(io, state, "lockfile repair", async (out: Output, cmd) => {
      const { dryRun } = cmd.opts<{ dryRun?: boolean }>();
      await withSession(cmd, io, out, async (s) => {
        // The local copy is the repair's base: it is read, never set aside here.
        const r = await repairManagedLockfile(s.service, {
          dryRun: dryRun ?? false,
          signal: io.signal,
          ...(s.namespace ? { namespace: s.namespace } : {}),
        });
        reportRepair(out, s.service.cache.stateDir, r);
      });
    })),
  );
  return lockfile;
}
