/**
 * A user's commands at a clone: syncs, bulk pushes, config edits, edits,
 * deletions, marker writes, adoptions, reshapes and resolutions, whose local
 * changes I6 follows (`local_changes.ts`), and a mark whose write never
 * came.
 *
 * @module
 */
import { ResolveRefusedError } from "../../sync/service/resolve.ts";
import { hasCode } from "../../sync/errors.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { MANAGED_LOCKFILE_PATH } from "../../sync/locks/lockfile_txn.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { DATA_NAMES, MODELS, type Op, SHARED_FILES } from "./history.ts";
import { sameBytes } from "./invariants.ts";
import { syncedDelete, underMarkerDelete } from "./under_marker.ts";
import { racedPull } from "./moves_lost_race.ts";
import { listedHeld } from "./moves_shard_cut.ts";
import { editAfterPull, namedHeld } from "./moves_checked_window.ts";
import {
  type Command,
  type CommandEnv,
  highestVersion,
  NOTHING_TAKEN_IN,
  plainCommand,
} from "./commands_env.ts";
import {
  directoryAt,
  editBytes,
  fileAbove,
  filesIn,
  handWrite,
  markerBytes,
  pushOf,
  recordEdit,
  resolveAsUser,
} from "./commands.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * A mark whose write never came (the `unwritten` move): only where nothing
 * is at the path here (a mark of a file here is an edit's).
 */
export function unwrittenCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "unwritten" }>,
): Command {
  return plainCommand(env, op.clone, `mark, never written #${op.id}`, async (svc) => {
    const path = SHARED_FILES[op.file];
    if (await Deno.lstat(`${svc.cacheDir}/${path}`).catch(() => null)) return NOTHING_TAKEN_IN;
    // Nor where it synced the path (a file deleted here: a mark of that is a deletion's).
    if (svc.state.synced(path)) return NOTHING_TAKEN_IN;
    // Nor where a conflict here records a deletion of the path already: a
    // user's deletion kept as a conflict with a peer's version that named
    // the path again (`delete_skipped`), not a mark's.
    if (svc.conflicts().some((c) => c.path === path && c.mine === null)) return NOTHING_TAKEN_IN;
    // Nor where its user deleted what it synced at the path or under a
    // directory of that name (a reshape by hand): something was there, and a
    // deletion there is its user's, which the mark only joins.
    const under = `${path}/`;
    if (
      env.changes.edits.some((e) =>
        e.clone === op.clone && e.hash === null && (e.path === path || e.path.startsWith(under))
      )
    ) return NOTHING_TAKEN_IN;
    env.stats.unwrittenMarks++;
    env.truth.unwritten.push({
      op: op.id,
      clone: op.clone,
      path,
      touchedBefore: env.changes.touched.length,
    });
    // A mark appends to the dirty journal: it reads no line of the manifest's log.
    await svc.markDirty({ relPath: path });
    return NOTHING_TAKEN_IN;
  });
}

/** A sync, bulk push, config edit, edit, deletion, marker write or resolution. */
export function moveCommand(
  env: CommandEnv,
  op: Extract<
    Op,
    {
      kind:
        | "sync"
        | "bulk"
        | "config"
        | "edit"
        | "delete"
        | "marker"
        | "resolve"
        | "adopt"
        | "reshape";
    }
  >,
): Command {
  const c = op.clone;
  const plain = (
    what: string,
    body: (svc: SyncService) => Promise<void | typeof NOTHING_TAKEN_IN>,
  ) => plainCommand(env, c, `${what} #${op.id}`, body);
  switch (op.kind) {
    case "sync":
      return plain("sync", async (svc) => {
        if (op.named !== undefined) await namedHeld(env, op.named);
        const pull = () => svc.pullChanged();
        await (op.raced ? racedPull(env, svc, c, op.raced, pull) : pull());
        if (op.edit !== undefined) await editAfterPull(env, svc, c, op.id, op.edit, op.again);
        await pushOf(env, svc);
        if (op.listed) await listedHeld(env, op.listed);
      });
    case "bulk":
      return plain("bulk push", async (svc) => {
        await svc.cache.write(`outputs/c${c}-op${op.id}.txt`, enc.encode(`op ${op.id}\n`));
        const from = env.shapes.puts;
        await svc.markDirty();
        await pushOf(env, svc);
        for (const v of await env.shapes.checkWalk(c, from, op.id)) env.truth.violate(v);
      });
    case "config":
      return plain("config edit", async (svc) => {
        const path = `config/settings-${op.file}.yaml`;
        const bytes = enc.encode(`edited_by: c${c}\nop: ${op.id}\n`);
        await env.changes.record({ op: op.id, clone: c, path, how: "config" }, bytes);
        await svc.cache.write(path, bytes);
        await svc.markDirty({ relPath: path });
        await pushOf(env, svc);
      });
    case "edit":
      return plain(`edit (${op.how})`, async (svc) => {
        let path = SHARED_FILES[op.file];
        const tick = op.how === "hand-tick";
        if (op.how === "under") {
          // A new file in the directory of that name, marked by the directory's name.
          if (!(await directoryAt(svc, path))) return NOTHING_TAKEN_IN;
          const part = `${path}/part-${op.id}.md`;
          const bytes = editBytes(`op ${op.id}: ${part} written by c${c}`);
          env.stats.edits++;
          env.stats.editsUnderMarkedByName++;
          await env.changes.record({ op: op.id, clone: c, path: part, how: op.how }, bytes);
          await handWrite(`${svc.cacheDir}/${part}`, bytes, false);
          await svc.markDirty({ relPath: path });
          return NOTHING_TAKEN_IN;
        }
        if (await directoryAt(svc, path)) {
          // A directory of that name is there (a reshape): the user edits the
          // first file in it instead (a revert or a same-size edit: none).
          if (op.how === "revert" || tick) return NOTHING_TAKEN_IN;
          const [inside] = (await filesIn(svc.cacheDir, path)).sort();
          if (!inside) return NOTHING_TAKEN_IN;
          path = inside;
        }
        const file = `${svc.cacheDir}/${path}`;
        env.stats.edits++;
        const synced = op.how === "revert" ? svc.state.synced(path) : undefined;
        const back = synced && env.changes.bytesOf(synced.hash);
        if (back) {
          // The bytes this cache last synced, by hand: no local change (see recordEdit).
          await recordEdit(env, svc, { op: op.id, clone: c, path, how: op.how }, back);
          await handWrite(file, back, false);
          return NOTHING_TAKEN_IN;
        }
        const size = tick ? (await Deno.stat(file).catch(() => null))?.size : undefined;
        const bytes = editBytes(`op ${op.id}: ${path} edited by c${c}`, size);
        await env.changes.record({ op: op.id, clone: c, path, how: op.how }, bytes);
        await handWrite(file, bytes, tick);
        if (op.how === "hand" || op.how === "revert" || tick) return NOTHING_TAKEN_IN;
        await svc.markDirty({ relPath: path });
        if (op.how !== "push") return NOTHING_TAKEN_IN;
        if (op.dropped) {
          env.stats.droppedEdits++;
          if (env.indexNames && !await env.indexNames(path)) env.stats.droppedEditsUnnamed++;
        }
        const r = await pushOf(env, svc);
        if (op.dropped && r.conflicts.includes(path)) {
          // I37: nobody deleted the file (the move's clones only edit it).
          const theirs = svc.conflicts().find((x) => x.path === path)?.theirs;
          if (theirs === null) {
            env.truth.violate({
              invariant: "I37",
              message:
                `c${c}'s push of its edit of ${path}, over the version it synced whose entry an old client's pull dropped, met it as a deletion nobody made: its upload went, and the committed file with it`,
              afterOp: env.opId(),
            });
          }
        }
        // Left out at its commit beside a directory of its name (`path_blocked`).
        const under = `files under a directory ${path} `;
        if (r.skipped.some((s) => s.path === path && s.reason.includes(under))) {
          env.stats.editsBlocked++;
        }
      });
    case "delete":
      if (op.how === "dir") {
        // The whole notes/ directory, removed by hand, then pushed by its name.
        return plain("delete (dir notes/)", async (svc) => {
          const dir = "notes";
          // Its files at any depth (a file replaced by a directory of its name holds some).
          const held = await filesIn(svc.cacheDir, dir);
          env.stats.deletes++;
          for (const path of held) {
            const synced = svc.state.synced(path);
            if (synced) {
              await env.changes.record(
                { op: op.id, clone: c, path, how: op.how },
                null,
                synced.hash,
              );
            } else env.changes.replaced(c, path);
          }
          await Deno.remove(`${svc.cacheDir}/${dir}`, { recursive: true }).catch(() => {});
          await svc.markDirty({ relPath: dir });
          await pushOf(env, svc);
        });
      }
      if (op.run !== undefined && op.committed) {
        return plain(
          `delete (${op.how}) of run #${op.run}'s committed version`,
          (svc) => underMarkerDelete(env, op, svc),
        );
      }
      if (op.run !== undefined) {
        return plain(`delete (${op.how}) of run #${op.run}'s version`, async (svc) => {
          // Its version's files here, unless acknowledged (I1 holds those).
          const rec = env.truth.runs.find((r) => r.op === op.run && r.clone === c);
          if (!rec || rec.outcome === "success" || rec.files.length === 0) return NOTHING_TAKEN_IN;
          const dir = rec.files[0].path.slice(0, rec.files[0].path.lastIndexOf("/"));
          if (rec.outcome === "version_exists") {
            // Its version set aside here: the empty directory it left goes, by hand.
            await Deno.remove(`${svc.cacheDir}/${dir}`).catch(() => {});
            return NOTHING_TAKEN_IN;
          }
          const gone: string[] = [];
          for (const f of rec.files) {
            const here = await Deno.readFile(`${svc.cacheDir}/${f.path}`).catch(() => null);
            if (!here || !sameBytes(here, f.bytes)) continue;
            // The user's deletion of what its run wrote here, whether its push's
            // commit landed (its answer lost: its own upload, to take back) or not.
            const hash = svc.state.synced(f.path)?.hash ?? await sha256Hex(here);
            await env.changes.record(
              { op: op.id, clone: c, path: f.path, how: op.how },
              null,
              hash,
            );
            await Deno.remove(`${svc.cacheDir}/${f.path}`);
            gone.push(f.path);
          }
          // With `synced`: the version the marker synced here names, too.
          if (gone.length > 0 && op.synced !== undefined) {
            gone.push(...await syncedDelete(env, op, svc));
          }
          if (gone.length === 0) return NOTHING_TAKEN_IN;
          env.stats.deletes++;
          env.stats.runOutputsDeleted++;
          if (op.how === "hand") return NOTHING_TAKEN_IN;
          await svc.markDirty({ relPaths: gone });
          await pushOf(env, svc);
        });
      }
      return plain(`delete (${op.how})`, async (svc) => {
        // The op's file, else the next shared file this cache holds.
        let path: string | undefined;
        for (let i = 0; i < SHARED_FILES.length && !path; i++) {
          const p = SHARED_FILES[(op.file + i) % SHARED_FILES.length];
          if ((await Deno.stat(`${svc.cacheDir}/${p}`).catch(() => null))?.isFile) path = p;
        }
        if (!path) return NOTHING_TAKEN_IN;
        env.stats.deletes++;
        // Deleting a copy this cache never synced goes back to what it synced
        // (nothing): not a local change, and the next pull may fetch the path.
        const synced = svc.state.synced(path);
        if (synced) {
          await env.changes.record({ op: op.id, clone: c, path, how: op.how }, null, synced.hash);
        } else env.changes.replaced(c, path);
        await Deno.remove(`${svc.cacheDir}/${path}`);
        if (op.how === "hand") return NOTHING_TAKEN_IN;
        await svc.markDirty({ relPath: path });
        await pushOf(env, svc);
      });
    case "marker":
      return plain("marker write", async (svc) => {
        const base = `data/${MODELS[op.model]}/${DATA_NAMES[op.data]}`;
        const highest = await highestVersion(svc.cacheDir, base);
        const n = highest - (op.back ? 1 : 0);
        const synced = svc.state.synced(`${base}/latest`);
        // A revert writes back the number the clone last synced (found by its hash).
        const back = op.how === "revert" && synced
          ? await markerBytes(synced.hash, highest + 1)
          : undefined;
        if (op.how === "revert" && !back) return NOTHING_TAKEN_IN;
        if (!back && n < 1) return NOTHING_TAKEN_IN;
        const bytes = back ?? enc.encode(`${n}`);
        env.stats.markerWrites++;
        // A move back from the highest version here is a rollback only when
        // it moves the marker below the number it named here: one that names
        // a higher number than before moves it forward (the versions above
        // came with no marker naming them, another tool's say), and a marker
        // moved further forward may be written over it (`marker_rebase.ts`).
        const named = Number(
          dec.decode(
            await Deno.readFile(`${svc.cacheDir}/${base}/latest`).catch(() => enc.encode("")),
          ),
        );
        const forward = Number.isInteger(named) && named > 0 && named < n;
        if (op.back && !back && !forward) {
          env.truth.markerRollbacks.add(`${base}/latest\0${await sha256Hex(bytes)}`);
        }
        await recordEdit(
          env,
          svc,
          { op: op.id, clone: c, path: `${base}/latest`, how: "marker" },
          bytes,
        );
        if (op.how === "hand" || op.how === "revert") {
          await handWrite(`${svc.cacheDir}/${base}/latest`, bytes, false);
          return NOTHING_TAKEN_IN;
        }
        await svc.cache.write(`${base}/latest`, bytes);
        await svc.markDirty({ relPath: `${base}/latest` });
        await pushOf(env, svc);
      });
    case "adopt":
      return plain("push --adopt-uncommitted", async (svc) => {
        const path = SHARED_FILES[op.file];
        const bytes = editBytes(`op ${op.id}: ${path} edited by c${c}`);
        // A directory of that name is there (a reshape): no file to edit.
        if (await directoryAt(svc, path)) return NOTHING_TAKEN_IN;
        env.stats.adoptions++;
        await env.changes.record({ op: op.id, clone: c, path, how: "adopt" }, bytes);
        await svc.cache.write(path, bytes);
        await svc.markDirty({ relPath: path });
        const markers = MODELS.flatMap((m) => DATA_NAMES.map((d) => `data/${m}/${d}/latest`));
        await pushOf(env, svc, { adoptUncommitted: [...SHARED_FILES, ...markers] });
      });
    case "reshape":
      return plain(`reshape (${op.how})`, async (svc) => {
        const path = SHARED_FILES[op.file];
        const at = `${svc.cacheDir}/${path}`;
        const st = await Deno.lstat(at).catch(() => null);
        // Whatever the user removes here: a deletion when synced, else its own
        // unpublished change, replaced by choice.
        const removing = async (p: string) => {
          const synced = svc.state.synced(p);
          if (synced) {
            await env.changes.record(
              { op: op.id, clone: c, path: p, how: "reshape" },
              null,
              synced.hash,
            );
          } else env.changes.replaced(c, p);
        };
        if (st?.isDirectory) {
          // The directory goes, a plain file takes its name.
          for (const p of await filesIn(svc.cacheDir, path)) await removing(p);
          const bytes = editBytes(`op ${op.id}: ${path} made a file again by c${c}`);
          await env.changes.record({ op: op.id, clone: c, path, how: "reshape" }, bytes);
          await Deno.remove(at, { recursive: true });
          await handWrite(at, bytes, false);
        } else if (st?.isFile) {
          // The file goes, a directory of its name holding a new file takes its place.
          await removing(path);
          const part = `${path}/part-${op.id}.md`;
          const bytes = editBytes(`op ${op.id}: ${part} written by c${c}`);
          await env.changes.record({ op: op.id, clone: c, path: part, how: "reshape" }, bytes);
          await Deno.remove(at);
          await handWrite(`${svc.cacheDir}/${part}`, bytes, false);
        } else return NOTHING_TAKEN_IN;
        env.stats.reshapes++;
        env.shapes.reshaped(c, path, op.how !== "hand");
        if (op.how === "hand") return NOTHING_TAKEN_IN;
        await svc.markDirty({ relPath: path });
        if (op.how === "mark") return NOTHING_TAKEN_IN;
        await pushOf(env, svc);
      });
    case "resolve":
      return plain(`resolve --${op.how}`, async (svc) => {
        // As a user does: pull to see what conflicts, then resolve one.
        if (svc.conflicts().length === 0) await svc.pullChanged();
        const list = svc.conflicts();
        if (list.length === 0) return;
        const picked = list[op.pick % list.length];
        const path = picked.path;
        // A directory of that name here (a reshape), or a file where one of
        // its directories must be, is no file to merge: mine, as it is.
        const how = path === MANAGED_LOCKFILE_PATH
          ? "theirs"
          : op.how === "merged" && (await directoryAt(svc, path) || await fileAbove(svc, path))
          ? "mine"
          : op.how;
        env.stats.resolutions++;
        if (how === "merged") {
          const marker = path.endsWith("/latest");
          const here = await Deno.readFile(`${svc.cacheDir}/${path}`).catch(() => null);
          const base = path.slice(0, path.lastIndexOf("/"));
          const bytes = marker
            ? here ?? enc.encode(`${Math.max(1, await highestVersion(svc.cacheDir, base))}`)
            : enc.encode(`op ${op.id}: ${path} merged by c${c}; ${here ? dec.decode(here) : ""}`);
          await recordEdit(env, svc, { op: op.id, clone: c, path, how: "merged" }, bytes);
          await svc.cache.write(path, bytes);
        }
        // Half the time (by the pick's high bit) a user taking theirs first
        // copies theirs into place by hand, as from a peer's checkout: the
        // resolution then finds the local copy already theirs.
        const theirsBytes = how === "theirs" && op.pick >= 4 && picked.theirs?.hash &&
            !(await directoryAt(svc, path))
          ? env.changes.bytesOf(picked.theirs.hash)
          : undefined;
        if (theirsBytes) {
          env.stats.theirsCopiedByHand++;
          // The user's own edit there is replaced by choice, not lost (I6).
          env.changes.replaced(c, path);
          await svc.cache.write(path, theirsBytes);
        }
        // A "merge" that left the file as mine is refused (not_merged); the
        // user, told so, publishes it with --mine, as the message says. A
        // --mine of a copy deleted by hand since is refused (not_found); the
        // user takes theirs, as that message says. So too a --mine or
        // --merged of a data version another writer published again with
        // other bytes (version_exists, the conflict left open): it is never
        // written over, and the refusal says --theirs settles it. A --mine
        // of a deletion of a version the marker here (or the committed one,
        // the marker here not publishable in its place) names is refused
        // (version_under_marker): the user takes theirs, as it says.
        const r = await resolveAsUser(env, svc, c, picked, how).catch(async (e) => {
          // A directory that replaced the file here (a reshape) is no file to
          // publish: theirs, as the refusal says.
          const dirHere = hasCode(e, "unsafe_path") && await directoryAt(svc, path);
          if (
            (hasCode(e, "not_found") || hasCode(e, "version_under_marker") || dirHere) &&
            how === "mine"
          ) {
            return resolveAsUser(env, svc, c, picked, "theirs");
          }
          const open = svc.conflicts().find((x) => x.path === path);
          if (
            e instanceof ResolveRefusedError && hasCode(e, "version_exists") && open &&
            /--theirs` to settle it/.test(e.message)
          ) {
            return resolveAsUser(env, svc, c, open, "theirs");
          }
          if (!hasCode(e, "not_merged")) throw e;
          return resolveAsUser(env, svc, c, picked, "mine");
        });
        if (r.resolved) env.stats.resolved++;
      });
  }
}
