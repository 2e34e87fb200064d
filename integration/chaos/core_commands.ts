/**
 * The core-driven commands other than a run (`core_driven.ts`): a second
 * process of the tool over a clone's cache ({@link coreSiblingCommand}),
 * `swamp datastore migrate-index` ({@link coreMigrateCommand}) and
 * `swamp datastore sync` ({@link coreSyncCommand}).
 *
 * @module
 */
import type { ExtensionSyncService } from "../../packages/extension/sync_service.ts";
import {
  codeOf,
  type Command,
  type CommandEnv,
  plainCommand,
  runFiles,
  runStarted,
  siblingDies,
  siblingRun,
} from "./commands.ts";
import {
  atomicWrite,
  enc,
  globalLock,
  hostFor,
  modelLock,
  waitForGlobalLock,
} from "./core_host.ts";
import { structuralCommand } from "./core_steps.ts";
import type { Op } from "./history.ts";

/**
 * A second process of the tool over a core-driven clone's cache (the
 * `sibling` move; see `siblingCommand` for an API clone's), run as the tool
 * runs `model method run` of a model of its own: its model lock, a scoped
 * pull, version 1 written and marked, then, after `op.workMs`, its flush
 * (two-phase or single-phase, as the clone's tool does), or its death before
 * it (`die` stops its lock's heartbeats; the lock is left to expire).
 */
export function coreSiblingCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "sibling" }>,
  die: () => void,
): Command {
  if (op.how === "structural") {
    const label = `second process #${op.id} (structural command)`;
    const who = `c${op.clone} ${label}`;
    let done = false;
    return {
      label,
      onFreeze: (why) => {
        if (!done) env.outcome(why, who);
      },
      body: (svc) =>
        structuralCommand(env, hostFor(svc), op, who, op.workMs).finally(() => done = true),
    };
  }
  const ref = { modelType: "chaos/sibling", modelId: `op${op.id}` };
  const model = `${ref.modelType}/${ref.modelId}`;
  const { by, rec, label, who, onFreeze } = siblingRun(env, op, model);
  return {
    label,
    onFreeze,
    body: async (svc) => {
      const host = hostFor(svc);
      runStarted(env, rec, true);
      const service = host.provider().createSyncService(host.repoDir, host.cachePath);
      const context = { models: [ref] };
      const lock = modelLock(host, model);
      try {
        await waitForGlobalLock(host);
        await lock.acquire();
      } catch (e) {
        rec.outcome = codeOf(e);
        env.outcome(rec.outcome, who, e);
        return;
      }
      let died = false;
      try {
        await service.pullChanged({ context });
        const base = `data/${model}/out`;
        const dir = `${base}/1`;
        await service.markDirty({ relPath: base });
        rec.files = runFiles(by, dir, 1);
        for (const f of rec.files) await atomicWrite(host.cachePath, f.path, f.bytes);
        await service.markDirty({ relPath: dir });
        await atomicWrite(host.cachePath, `${base}/latest`, enc.encode("1"));
        env.truth.marked.push(rec);
        if (op.workMs > 0) await host.clock.sleep(op.workMs);
        if (op.how === "dies") {
          died = true;
          siblingDies(env, rec, who, die, "flush");
          return;
        }
        if (host.flush === "two-phase" && service.capabilities().twoPhaseSync) {
          const manifest = await service.preparePush({ context });
          await globalLock(host).withLock(() => service.commitPush(manifest));
        } else {
          await globalLock(host).withLock(() => service.pushChanged({ context }));
        }
        rec.outcome = "success";
        env.stats.coreAcknowledged++;
        env.outcome(rec.outcome, who);
      } catch (e) {
        rec.outcome = codeOf(e);
        env.outcome(rec.outcome, who, e);
      } finally {
        if (!died) await lock.release().catch(() => {});
      }
    },
  };
}

/** `swamp datastore migrate-index`: the extension's migrateMonolithToShards under the global lock. */
export function coreMigrateCommand(env: CommandEnv, op: Extract<Op, { kind: "migrate" }>): Command {
  return plainCommand(env, op.clone, `core migrate-index #${op.id}`, async (svc) => {
    const host = hostFor(svc);
    await globalLock(host).withLock(async () => {
      const service: ExtensionSyncService = host.provider().createSyncService(
        host.repoDir,
        host.cachePath,
      );
      env.stats.migrations++;
      await service.migrateMonolithToShards();
      env.stats.migrated++;
    });
  });
}
/** `swamp datastore sync` on a core-driven clone: global lock, a new service, pull, push. */
export function coreSyncCommand(env: CommandEnv, op: Extract<Op, { kind: "sync" }>): Command {
  // Beside old clients, every other sync is one of the tool's token commands,
  // which push with no global lock held (the extension's `oldClients` takes it).
  if (env.oldClients && op.id % 2 === 0) {
    return plainCommand(env, op.clone, `core token push #${op.id}`, async (svc) => {
      const host = hostFor(svc);
      const service = host.provider().createSyncService(host.repoDir, host.cachePath);
      const rel = `outputs/c${op.clone}-token-op${op.id}.txt`;
      await service.markDirty({ relPath: rel });
      await Deno.mkdir(`${host.cachePath}/outputs`, { recursive: true });
      await Deno.writeTextFile(`${host.cachePath}/${rel}`, `token of op ${op.id}\n`);
      await service.pushChanged();
    });
  }
  return plainCommand(env, op.clone, `core sync #${op.id}`, async (svc) => {
    const host = hostFor(svc);
    await globalLock(host).withLock(async () => {
      const service: ExtensionSyncService = host.provider().createSyncService(
        host.repoDir,
        host.cachePath,
      );
      await service.pullChanged();
      await service.pushChanged();
    });
  });
}
