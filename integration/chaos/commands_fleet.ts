/**
 * The commands of a mixed fleet: an old client's pull and its push on a
 * clone's machine (another tool's, beside Sluice's own), with I35's check
 * of the markers a stopped push writes back, and `sluice index migrate`,
 * the move to v2 shards.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import { migrateIndex } from "../../sync/service/migrate.ts";
import { parseEntry } from "../../sync/transfer/bucket_layout.ts";
import { peerCommitSeq, peerPull, peerPush } from "../../packages/testing/layout_peer.ts";
import { type Op, SHARED_FILES } from "./history.ts";
import { sameBytes } from "./invariants.ts";
import {
  CHAOS_LOCK,
  type Command,
  type CommandEnv,
  NOTHING_TAKEN_IN,
  OLD_CLIENT_LABEL,
  OLD_PULL_LABEL,
  OLD_WINDOW_MS,
  oldClientOf,
  plainCommand,
} from "./commands_env.ts";

const enc = new TextEncoder();

/**
 * An old client's pull (`peerPull`), on the clone's machine: no lock. Its
 * writes are by design (a commit it drops is named again by its writer's
 * next pull); counted, nothing recorded.
 */
export function oldPullCommand(env: CommandEnv, op: Extract<Op, { kind: "oldpull" }>): Command {
  return plainCommand(env, op.clone, `${OLD_PULL_LABEL} #${op.id}`, async (svc) => {
    env.stats.oldPulls++;
    const startedBefore = env.truth.oldStarted.length;
    // Under way as it starts: their index write may land after its read.
    const inFlight = [...env.truth.oldUnfinished.values()];
    // Stopped between its read and its write-back (`window`): what that
    // clone's command commits meanwhile, its write drops.
    const window = op.window;
    const afterRead = window === undefined || !env.windowOf ? undefined : async () => {
      const done = env.windowOf!(window, op.id);
      env.stats.oldPullWindows++;
      const until = svc.clock.now() + OLD_WINDOW_MS;
      while (!done() && svc.clock.now() < until) await svc.clock.sleep(1_000);
      if (done()) env.stats.oldPullWindowsMet++;
    };
    const dropped = await peerPull(svc.store, {
      ...(afterRead ? { afterRead } : {}),
      // An entry another old client committed since this pull's read is
      // dropped by its write, by their design, or rolled back to the entry
      // it read (an earlier write of that path, other bytes): no Sluice
      // clone names it again (I7, I8, I11 and I12 spare it: those in
      // flight, or done, since the pull began, whose entry it did not write
      // with their bytes). Sluice's own are named again by their writers.
      // Also run when its write failed: one whose answer was lost (a flaky
      // put after effect) landed all the same.
      afterWrite: async (wrote) => {
        const since = [
          ...inFlight,
          ...env.truth.oldStarted.slice(startedBefore),
          ...env.truth.oldUnfinished.values(),
        ];
        for (const o of since) {
          const p = oldPushPath(o);
          const e = wrote[p];
          const kept = e !== undefined &&
            (o.del || e.sha256 === await sha256Hex(enc.encode(oldPushText(o))));
          if (!kept) env.truth.oldPullDropped.add(p);
          // A deletion whose entry it wrote back (see `GroundTruth.oldPullUndeleted`).
          if (o.del && e !== undefined) {
            const v = parseEntry(p, e).v;
            const all = env.truth.oldPullUndeleted.get(p) ?? new Set<string>();
            env.truth.oldPullUndeleted.set(p, all.add(v));
          }
        }
        // An old client's write of a refused run's bytes it wrote over
        // without their entry (see `GroundTruth.oldPullMissed`).
        for (const w of env.truth.oldCommitted) {
          if (Object.hasOwn(wrote, w.path)) continue;
          env.truth.oldPullMissed.add(w.path);
          // Gone from the store as it wrote (see `GroundTruth.oldPullMetGone`).
          const held = await env.storeRead?.(w.path);
          if (env.storeRead && !sameBytes(held, w.bytes)) env.truth.oldPullMetGone.add(w.path);
        }
        // A run's version the store holds that its index leaves out (a
        // commit it dropped, or one not landed yet: see
        // `GroundTruth.oldPullRunsUnnamed`).
        for (const f of env.truth.runs.flatMap((r) => r.files)) {
          if (Object.hasOwn(wrote, f.path) || !env.storeRead) continue;
          if (sameBytes(await env.storeRead(f.path), f.bytes)) {
            env.truth.oldPullRunsUnnamed.add(f.path);
          }
        }
        // A Sluice write its index leaves out (a commit it dropped).
        const unnamed = await env.sluiceUnnamed?.(wrote) ?? [];
        for (const p of unnamed) env.truth.oldPullUnnamed.add(p);
        if (window !== undefined) env.stats.oldPullWindowUnnamed += unnamed.length;
      },
    });
    env.stats.oldPullDrops += dropped.length;
  }, true);
}

/**
 * I35: an old client's push stopped inside its read-modify-write of the
 * index (an `oldpush` with `window`), alone inside the global lock, writes
 * back no `latest` marker's entry naming a version the store no longer
 * holds: the index named another version there as the push went on to
 * write (`before`), which a Sluice writer made meanwhile outside the global
 * lock (a marker's take-back, put back and named), and the push's write
 * from its earlier read put the entry naming the version it replaced back.
 * Spared: a marker another tool wrote honouring no lock (`lockless`).
 */
async function markersPutBack(
  env: CommandEnv,
  op: Extract<Op, { kind: "oldpush" }>,
  before: Record<string, string>,
): Promise<void> {
  if (!env.markerEntries || !env.heldVersion) return;
  const after = await env.markerEntries();
  for (const [path, v] of Object.entries(after)) {
    if (before[path] === undefined || before[path] === v) continue;
    if (env.truth.lockless.some((l) => l.marker && l.path === path)) continue;
    const held = await env.heldVersion(path);
    if (held === v) continue;
    env.truth.violate({
      invariant: "I35",
      message:
        `old client push #${op.id}, stopped inside its read-modify-write of the index, wrote back the entry of ${path} naming version ${v}, which the store no longer holds (it holds ${
          held ?? "nothing"
        }): the index named ${
          before[path]
        } there as it went on to write, an index write made outside the global lock meanwhile`,
      afterOp: env.opId(),
    });
  }
}

/** The path an old client's push (an `oldpush` move) writes or deletes. */
function oldPushPath(o: { readonly id: number; readonly clone: number; readonly file?: number }) {
  return o.file === undefined ? `logs/old-c${o.clone}-op${o.id}.log` : SHARED_FILES[o.file];
}

/** The text an old client's push (an `oldpush` move) writes. */
function oldPushText(o: {
  readonly id: number;
  readonly clone: number;
  readonly file?: number;
  readonly again?: { readonly op: number; readonly clone: number };
}): string {
  // As that edit operation's bytes (`editBytes` in commands.ts).
  if (o.again && o.file !== undefined) {
    return `op ${o.again.op}: ${SHARED_FILES[o.file]} edited by c${o.again.clone}; some settings\n`;
  }
  return `old client of c${o.clone}, op ${o.id}\n`;
}

/**
 * An old client's push on the clone's machine: under the global lock (its
 * own identity), a plain put of a new file, then an unconditional
 * read-modify-write of the index (`peerPush`). Recorded for I12 once it
 * returns.
 */
export function oldPushCommand(env: CommandEnv, op: Extract<Op, { kind: "oldpush" }>): Command {
  const inside = env.truth.oldInside;
  const cmd = plainCommand(env, op.clone, `${OLD_CLIENT_LABEL} #${op.id}`, async (svc) => {
    if (!svc.lockBackend) throw new Error("the chaos clones have a lock backend");
    const shared = op.file === undefined ? undefined : SHARED_FILES[op.file];
    const path = oldPushPath(op);
    const text = oldPushText(op);
    const lock = svc.lockBackend.createLock(
      globalLockKey(),
      { holder: `old-client-c${op.clone}@chaos`, hostname: `old-c${op.clone}`, pid: 1 },
      CHAOS_LOCK,
    );
    env.stats.oldPushes++;
    env.truth.oldStarted.push(op);
    const again = env.truth.oldUnfinished.has(op.id);
    env.truth.oldUnfinished.set(op.id, op);
    const files = op.del ? {} : { [path]: text };
    const remove = op.del ? [path] : [];
    // Stopped between its read of the index and its write (`window`): its
    // lock held and renewed, while that clone's push runs.
    const window = op.window;
    // The markers the index named as the stopped push went on to write (I35).
    let before: Record<string, string> | undefined;
    const afterRead = window === undefined || !env.windowOf ? undefined : async () => {
      const done = env.windowOf!(window, op.id);
      env.stats.oldWindows++;
      const until = svc.clock.now() + OLD_WINDOW_MS;
      while (!done() && svc.clock.now() < until) await svc.clock.sleep(1_000);
      if (done()) env.stats.oldWindowsMet++;
      before = await env.markerEntries?.();
    };
    let skipped = false;
    await lock.withLock(async () => {
      // Two old clients inside the global lock at once (a hold taken over
      // as stale while its renewals were parked, the thief's delete of it
      // perhaps reported failed): both rewrite the index without a
      // compare-and-swap, over each other, by design.
      if (inside.size > 0) {
        for (const id of [...inside, op.id]) env.truth.oldOverlapped.add(id);
      }
      inside.add(op.id);
      try {
        // Old clients give a v2 bucket's `config/` and `notes/` files no
        // shard (they have no partition): such an edit would stay outside
        // the index by their own design. Checked under the lock, which a
        // move takes too.
        if (shared && await peerCommitSeq(svc.store) !== null) {
          skipped = true;
          return;
        }
        await peerPush(svc.store, files, {
          now: () => svc.clock.now(),
          remove,
          ...(afterRead ? { afterRead } : {}),
        });
        // Its edit of a shared file, as a committed change of a writer of
        // its own (`oldClientOf`): I9 holds Sluice's writers to have seen it
        // before they replace it, and I7 at each commit to not name a
        // version it replaced. (Recorded once its index write landed; I6
        // checks no cache for it.)
        if (shared && !op.del) {
          await env.changes.record(
            { op: op.id, clone: oldClientOf(op.clone), path, how: "old client" },
            new TextEncoder().encode(text),
          );
        }
      } finally {
        inside.delete(op.id);
      }
    });
    env.truth.oldUnfinished.delete(op.id);
    if (skipped) env.stats.oldEditsOnV2++;
    const overlapped = lock.lost === true || env.truth.oldOverlapped.has(op.id);
    if (before && !overlapped) await markersPutBack(env, op, before);
    // Its first attempt stopped after its object write, and the bucket
    // turned v2 since; or another old client was inside the lock with it:
    // its write may stand unnamed, by their design (I7, I8, I11 spare it).
    if (shared && ((skipped && again) || (overlapped && !op.del))) {
      env.truth.oldStranded.add(path);
    }
    if (shared) return; // replaced or deleted later by design: I9 and I7 check it
    if (overlapped) {
      env.stats.oldPushesLockLost++;
      return;
    }
    env.truth.oldPushes.push({ op: op.id, path, text });
  }, true);
  // A push frozen by its clone's crash is inside no lock any more.
  return {
    ...cmd,
    onFreeze: (why) => {
      inside.delete(op.id);
      cmd.onFreeze(why);
    },
  };
}

/**
 * `sluice index migrate`: the move to v2 shards under the global lock. It
 * works on the store alone (`migrateIndex` takes the service's store,
 * config, events and clock): it reads no line of the clone's manifest log,
 * so a damaged line there is the next command's to tell (I30).
 */
export function migrateCommand(env: CommandEnv, op: Extract<Op, { kind: "migrate" }>): Command {
  return plainCommand(env, op.clone, `index migrate #${op.id}`, async (svc) => {
    if (!svc.lockBackend) throw new Error("the chaos clones have a lock backend");
    env.stats.migrations++;
    const lock = svc.lockBackend.createLock(globalLockKey(), svc.identity);
    await lock.withLock(() => migrateIndex(svc, undefined, lock));
    env.stats.migrated++;
    return NOTHING_TAKEN_IN;
  });
}
