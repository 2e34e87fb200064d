/**
 * Chaos histories as text and back: an operation or a history printed as
 * short lines, and a history parsed from the JSON a failing run prints
 * (`--replay`).
 *
 * @module
 */
import {
  CLIENT_KINDS,
  type ClientKind,
  DATA_NAMES,
  type History,
  kindOf,
  MODELS,
  type Op,
  SHARED_FILES,
} from "./history_ops.ts";
import { WEIGHTS } from "./history_options.ts";
import { foreignObjects } from "./moves_bucket.ts";

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/**
 * One operation as a short line, e.g. `#4 run c1 shell/cmd/m0/out work=15s`;
 * with the clones' `kinds`, a run or sync of a core-driven clone says so
 * (`#4 run c1 (core) …`).
 *
 * @example
 * ```ts
 * import { formatOp } from "./history.ts";
 * formatOp({ id: 3, kind: "crash", clone: 1 }); // "#3 crash c1"
 * ```
 */
export function formatOp(op: Op, kinds?: readonly ClientKind[]): string {
  const head = `#${op.id} ${op.kind}`;
  const via = (c: number) => {
    const k = kindOf({ kinds }, c);
    return k === "api" ? "" : k === "core" ? " (core)" : " (core, single-phase)";
  };
  switch (op.kind) {
    case "run":
      return `${head} c${op.clone}${via(op.clone)} ${MODELS[op.model]}/${
        DATA_NAMES[op.data]
      } work=${seconds(op.workMs)}${op.same ? " same-output" : ""}${
        op.streamed ? " streamed" : ""
      }${op.parallel ? " parallel" : ""}${op.structural ? " structural" : ""}${
        op.saveGap ? " save-gap" : ""
      }${op.again ? ` (a push cut off: again after ${seconds(op.again)})` : ""}`;
    case "sync":
      return `${head} c${op.clone}${via(op.clone)}${
        op.raced ? " (right after its marker's push raced by a peer's: I38)" : ""
      }${op.listed ? " (the index then names no missing object of that data name: I7)" : ""}${
        op.edit !== undefined
          ? ` (editing ${SHARED_FILES[op.edit]} between its pull and push${
            op.again ? `, with the bytes of c${op.again.clone}'s #${op.again.op}` : ""
          })`
          : ""
      }${
        op.named !== undefined ? ` (the index first names ${SHARED_FILES[op.named]} held: I7)` : ""
      }${secondOf(op)}`;
    case "migrate":
      return `${head} c${op.clone}${via(op.clone)}`;
    case "bulk":
      return `${head} c${op.clone}`;
    case "adopt":
      return `${head} c${op.clone} ${SHARED_FILES[op.file]}`;
    case "crash":
      return `${head} c${op.clone}${
        op.at === "commit"
          ? " (armed: between a commit write and the index)"
          : op.at === "answer"
          ? " (armed: as its index write lands, before the answer)"
          : ""
      }`;
    case "reshape":
      return `${head} c${op.clone} ${SHARED_FILES[op.file]} file <-> directory (${op.how})`;
    case "edit":
    case "delete":
      return `${head} c${op.clone} ${
        op.how === "dir"
          ? "notes/"
          : op.kind === "delete" && op.run !== undefined
          ? `the files of run #${op.run}'s ${
            op.committed ? "committed version, its marker here naming it" : "version"
          }${op.synced !== undefined ? ` and of run #${op.synced}'s, its marker synced` : ""}`
          : SHARED_FILES[op.file]
      } (${op.how})${
        op.kind === "edit" && op.dropped ? " over an entry an old client dropped" : ""
      }`;
    case "marker":
      return `${head} c${op.clone} ${MODELS[op.model]}/${DATA_NAMES[op.data]}/latest${
        op.back ? " (one back)" : ""
      }${op.how && op.how !== "push" ? ` (${op.how})` : ""}`;
    case "resolve":
      return `${head} c${op.clone} conflict ${op.pick} --${op.how}${secondOf(op)}`;
    case "config":
      return `${head} c${op.clone} config/settings-${op.file}.yaml`;
    case "lockfile":
      return `${head} c${op.clone} ${
        op.set ? `set ${op.set}` : op.remove ? `remove ${op.remove}` : "retry"
      }`;
    case "breakglass":
      return `${head} ${op.model === null ? "global lock" : MODELS[op.model]}`;
    case "outage":
      return `${head} ${op.on ? "on" : "off"}`;
    case "stall":
      return `${head} c${op.clone} ${
        op.on
          ? op.at === "companions"
            ? "stops after its next v1 index write"
            : op.at === "move"
            ? "stops after its move reads the v1 index"
            : op.at === "withdraw"
            ? "stops before its push deletes an object after an index write"
            : op.at === "marker"
            ? "stops past its next delete of a latest marker's object"
            : op.at === "commit"
            ? `stops once run #${op.run}'s uploads landed, before its commit (its lock's check or its marker)`
            : "stops"
          : "goes on"
      }`;
    case "unwritten":
      return `${head} c${op.clone} marks ${
        SHARED_FILES[op.file]
      } dirty, and the write never comes (nothing there)`;
    case "copy":
      return `${head} c${op.clone} takes a copy of c${op.from}'s cache, state and all, in place of its own`;
    case "sibling":
      return op.how === "structural"
        ? `${head} c${op.clone} a second process over its cache runs a structural command (pull and push naming no model) ${
          seconds(op.workMs)
        } after it starts`
        : `${head} c${op.clone} a second process over its cache runs a model of its own, marks its version, and ${
          op.how === "push" ? "pushes it" : "dies before its push"
        } ${seconds(op.workMs)} later`;
    case "oldsame":
      return `${head} c${op.clone} (old client: writes run #${op.run}'s bytes at its version's path as its erasure deletes them, a plain put and its index entry)`;
    case "lockless":
      return `${head} another tool publishes its own version at run #${op.run}'s number${
        op.below ? " less one" : ""
      } while the run holds its lock, written and not flushed (no lock; raw, metadata.yaml${
        op.marker ? ", latest" : ""
      }; ${op.indexed ? "with its index entries" : "no index entry"})`;
    case "torn":
      return `${head} c${op.clone} another process over its cache, its disk full, writes ahead part of a manifest log line (${
        SHARED_FILES[op.file]
      }), no newline`;
    case "damaged":
      return `${head} c${op.clone} a damaged disk block: a line of its manifest log (not the last; ${
        SHARED_FILES[op.file]
      }'s record if there is one) turns to garbage, and ${
        op.open
          ? "another process writes a line ahead after it, the clone's process open since before"
          : "its process restarts"
      }${
        op.dies === undefined
          ? ""
          : `, then dies inside the save its next sync makes, once its base is in place, before the log is replaced (another process's line written ahead since its take-in, ${
            op.dies === "log" ? "to the log in place" : "to a log it creates, none there"
          })`
      }${
        op.replaceFails
          ? ", then its replacement of the log after a base its save writes fails (no space left), another process's line of a path that save records written ahead since its take-in"
          : ""
      }`;
    case "oldpull":
      return `${head} c${op.clone} (old client: writes back the v1 index it read where an object is missing, no lock${
        op.window === undefined
          ? ""
          : `; stops between its read of the index and its write while c${op.window}'s next command runs`
      })`;
    case "oldpush":
      return `${head} c${op.clone} ${
        op.file === undefined
          ? `logs/old-c${op.clone}-op${op.id}.log`
          : `${op.del ? "deletes" : "edits"} ${SHARED_FILES[op.file]}${
            op.again ? ` with the bytes of c${op.again.clone}'s op #${op.again.op}` : ""
          }`
      } (old client, global lock${
        op.window === undefined
          ? ""
          : `; stops between its read of the index and its write while c${op.window}'s next command runs`
      })`;
    case "foreign":
      return `${head} another tool puts ${
        foreignObjects(op).map((o) => o.path).join(", ")
      } (no lock, no index)`;
    case "vanish":
      return op.rewrite
        ? `${head} another client publishes the raw output of run #${op.run} again with other bytes (a plain put and its index entry)${
          op.idle !== undefined ? `, once c${op.idle} runs no command` : ""
        }`
        : op.blind
        ? `${head} an older client's push deletes the raw output of run #${op.run}, object and index entry, never having had it`
        : `${head} another tool deletes ${
          op.run === undefined
            ? SHARED_FILES[op.file]
            : op.whole
            ? `every file of run #${op.run}'s version`
            : `the raw output of run #${op.run}`
        } (no lock, no index)`;
    case "latency":
      return `${head} ${seconds(op.ms)}`;
    case "flaky":
      return `${head} ${op.count}x ${op.call}${op.afterEffect ? " (after effect)" : ""}`;
    case "blip":
      if (op.putBack) {
        return `${head} c${op.clone} (armed: its second look at a file since its delete of it, the store holding it again, fails as unreachable, once)`;
      }
      return `${head} c${op.clone} (armed: its next ${op.call} of ${
        op.marker
          ? (op.call === "put" ? "a latest marker as a create" : "a latest marker")
          : "a file"
      } fails as unreachable, once${op.landed ? ", its first attempt landed" : ""}${
        op.call === "head" ? "; armed at once" : ""
      })`;
    case "tick":
      return `${head} ${op.n} @${op.pick}`;
    case "wait":
      return `${head} ${seconds(op.ms)}`;
  }
}

/**
 * The history as text: a header line, then one operation per line.
 *
 * @example
 * ```ts
 * import { formatHistory, generateHistory } from "./history.ts";
 * console.log(formatHistory(generateHistory(1)));
 * ```
 */
export function formatHistory(h: History): string {
  const locks = h.absentOnError ? ", third-party locks (a failed read looks absent)" : "";
  const layout = h.v2 ? ", v2 (sharded) index" : "";
  const clients = h.kinds ? `, clients ${h.kinds.map((k, i) => `c${i} ${k}`).join(" ")}` : "";
  const old = h.oldClients ? ", old clients push too (Sluice commits under the global lock)" : "";
  const skew = h.skewMs?.some((ms) => ms !== 0)
    ? `, clocks off the store's by ${h.skewMs.map((ms, i) => `c${i} ${ms / 1000} s`).join(" ")}`
    : "";
  const first = h.indexFirst ? ", first pushes make the index first" : "";
  const etag = h.etag ? ", versions are the bytes' (ETags)" : "";
  const checked = h.checkedDeletes ? ", deletes check the version, then delete (as on MinIO)" : "";
  const reused = h.reusedLocks ? ", core processes take one lock object per model again" : "";
  const flaky = h.setAsideFlaky ? ", index reads fail right after a lost version's set-aside" : "";
  return [
    `seed ${h.seed}, ${h.clones} clones${locks}${layout}${clients}${old}${skew}${first}${etag}${checked}${reused}${flaky}, ${h.ops.length} ops:`,
    ...h.ops.map((op) => formatOp(op, h.kinds)),
  ]
    .join("\n");
}

/** Parses a history printed as JSON (`--replay`); throws a plain Error naming what is wrong. */
export function parseHistory(text: string): History {
  const j = JSON.parse(text);
  if (
    typeof j?.seed !== "number" || typeof j?.clones !== "number" || !Array.isArray(j?.ops) ||
    j.clones < 1 || j.clones > 9
  ) {
    throw new Error("a history is a JSON object {seed, clones, ops: [...]}");
  }
  if (
    j.kinds !== undefined &&
    (!Array.isArray(j.kinds) || j.kinds.length !== j.clones ||
      !j.kinds.every((k: unknown) => CLIENT_KINDS.includes(k as ClientKind)))
  ) {
    throw new Error(`kinds is a list of ${j.clones} client kinds (${CLIENT_KINDS.join(", ")})`);
  }
  if (
    j.skewMs !== undefined &&
    (!Array.isArray(j.skewMs) || j.skewMs.length !== j.clones ||
      !j.skewMs.every((ms: unknown) => typeof ms === "number" && Number.isFinite(ms)))
  ) {
    throw new Error(`skewMs is a list of ${j.clones} numbers of milliseconds`);
  }
  if (j.indexFirst !== undefined && typeof j.indexFirst !== "boolean") {
    throw new Error("indexFirst is true or false");
  }
  if (j.etag !== undefined && typeof j.etag !== "boolean") {
    throw new Error("etag is true or false");
  }
  if (j.checkedDeletes !== undefined && typeof j.checkedDeletes !== "boolean") {
    throw new Error("checkedDeletes is true or false");
  }
  if (j.reusedLocks !== undefined && typeof j.reusedLocks !== "boolean") {
    throw new Error("reusedLocks is true or false");
  }
  if (j.setAsideFlaky !== undefined && typeof j.setAsideFlaky !== "boolean") {
    throw new Error("setAsideFlaky is true or false");
  }
  const kinds = new Set([
    ...Object.keys(WEIGHTS),
    "stall",
    "oldpush",
    "oldpull",
    "unwritten",
    "reshape",
    "foreign",
    "vanish",
    "sibling",
    "oldsame",
    "copy",
    "lockless",
    "torn",
    "damaged",
    "blip",
  ]);
  for (const op of j.ops) {
    if (typeof op?.id !== "number" || !kinds.has(op?.kind)) {
      throw new Error(`not an operation: ${JSON.stringify(op)}`);
    }
    if ("clone" in op && (op.clone < 0 || op.clone >= j.clones)) {
      throw new Error(`operation #${op.id} names clone ${op.clone} of ${j.clones}`);
    }
    if (op.kind === "copy" && !(op.from >= 0 && op.from < j.clones && op.from !== op.clone)) {
      throw new Error(`operation #${op.id} copies from clone ${op.from} of ${j.clones}`);
    }
  }
  return j as History;
}

/** How a sync or resolution runs in a second process over the clone's cache (`second`), or "". */
function secondOf(op: Extract<Op, { kind: "sync" | "resolve" }>): string {
  if (!op.second) return "";
  const when = op.atClear
    ? ", right before its own process's next clear of its conflict records"
    : op.afterClear
    ? ", right after its own process's next clear of its conflict records, once its pull took in what the cache synced"
    : op.atPull
    ? ", right after its own process's next pull took in what the cache synced"
    : op.aimed
    ? ", right after its own process's next take-in of its conflict records"
    : "";
  const hand = op.handAfter !== undefined
    ? `, then its user edits ${SHARED_FILES[op.handAfter]} by hand`
    : "";
  const first = op.handBefore !== undefined
    ? `, its user first editing ${SHARED_FILES[op.handBefore]} by hand`
    : "";
  const outage = op.outageAfter ? ", then the datastore goes unreachable" : "";
  return ` (in a second process over its cache${when}${first}${hand}${outage})`;
}
