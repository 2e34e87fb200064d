import assert from "node:assert/strict";
import { createEmitter } from "../sync/events.ts";
import { type CliIo, Output } from "./output.ts";
import { withProgressBar } from "./progress.ts";

/**
 * What a terminal shows after `written`: enough of one for the bar's
 * sequences (save and restore the cursor, go to a column, clear the line,
 * line wrapping and cursor visibility), with stdout and stderr on one screen.
 */
function screen(written: string): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  let saved = { row: 0, col: 0 };
  const line = () => (rows[row] ??= []);
  // deno-lint-ignore no-control-regex
  const token = /\x1b7|\x1b8|\x1b\[\?\d+[hl]|\x1b\[(\d*)G|\x1b\[(\d*)K|\n|\r|[^\x1b\n\r]/gu;
  for (const m of written.matchAll(token)) {
    const t = m[0];
    if (t === "\x1b7") saved = { row, col };
    else if (t === "\x1b8") ({ row, col } = saved);
    else if (t.startsWith("\x1b[?")) continue;
    else if (t.endsWith("G")) col = Number(m[1] || "1") - 1;
    else if (t.endsWith("K")) {
      const mode = m[2] || "0";
      if (mode === "2") rows[row] = [];
      else if (mode === "0") line().length = Math.min(line().length, col);
    } else if (t === "\n") {
      row++;
      col = 0;
    } else if (t === "\r") col = 0;
    else {
      const l = line();
      while (l.length < col) l.push(" ");
      l[col++] = t;
    }
  }
  return rows.map((r) => (r ?? []).join("").trimEnd()).filter((r, i, all) =>
    r !== "" || all.slice(i).some((x) => x !== "")
  );
}

/** A terminal of `columns` (stdout and stderr on one screen), its output, and an emitter. */
function terminal(columns: number) {
  const t = { written: "" };
  const io: CliIo = {
    stdout: (s) => t.written += s,
    stderr: (s) => t.written += s,
    isTTY: true,
    columns,
  };
  return { t, io, out: new Output(io), events: createEmitter() };
}

Deno.test("a note or warning written while a progress bar is drawn keeps its own line, and no bar is left behind", async () => {
  const { t, io, out, events } = terminal(100);
  await withProgressBar(io, out, events, () => {
    events.emit("progress", {
      op: "walk",
      filesDone: 1,
      filesTotal: 3,
      bytesDone: 1,
      bytesTotal: 3,
    });
    events.emit("progress", {
      op: "walk",
      filesDone: 3,
      filesTotal: 3,
      bytesDone: 3,
      bytesTotal: 3,
    });
    out.gate({ gate: "overwrite-cas", message: "3 never synced here" });
    events.emit("progress", {
      op: "push",
      filesDone: 1,
      filesTotal: 3,
      bytesDone: 1,
      bytesTotal: 3,
    });
    out.warn({ code: "store_retry", message: "attempt 1 of 4 failed" });
    events.emit("progress", {
      op: "push",
      filesDone: 3,
      filesTotal: 3,
      bytesDone: 3,
      bytesTotal: 3,
    });
    return Promise.resolve();
  });
  assert.match(t.written, /walk \[/, "a bar was drawn");
  assert.match(t.written, /push \[/, "the bar was drawn again after the note");
  out.say("Pushed 3 files.");
  assert.deepEqual(screen(t.written), [
    "  overwrite-cas: 3 never synced here",
    "warning[store_retry]: attempt 1 of 4 failed",
    "Pushed 3 files.",
  ]);
});

Deno.test("the terminal model of the test reads the bar's sequences as a terminal does", () => {
  assert.deepEqual(screen("\x1b7abc\x1b[0K\x1b[1Gxy\x1b8\x1b[1G\x1b[2Kdone\nnext"), [
    "done",
    "next",
  ]);
  assert.deepEqual(screen("bar 50%\x1b[1G\x1b[0Kbar 100%  note\n"), ["bar 100%  note"]);
});

Deno.test("the bar counts failed files beside the done ones", async () => {
  const { t, io, out, events } = terminal(120);
  await withProgressBar(io, out, events, () => {
    for (const filesFailed of [undefined, 2]) {
      events.emit("progress", {
        op: "push",
        filesDone: 3,
        filesTotal: 4,
        bytesDone: 3,
        bytesTotal: 4,
        ...(filesFailed ? { filesFailed } : {}),
      });
    }
    return Promise.resolve();
  });
  assert.match(t.written, /3\/4 files \| 3 B\/4 B \| 2 failed/);
});
