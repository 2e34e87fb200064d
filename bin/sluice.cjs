#!/usr/bin/env node
// The `sluice` command for npm (`npx sluice …` after `npm ci`): runs
// `deno run -A cli/main.ts …` with the Deno binary that npm installed, passing
// the arguments, the standard streams and the exit status through.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const main = path.join(root, "cli", "main.ts");

function denoBinary() {
  const exe = process.platform === "win32" ? "deno.exe" : "deno";
  let dir;
  try {
    dir = path.dirname(require.resolve("deno/package.json", { paths: [root] }));
  } catch {
    dir = path.join(root, "node_modules", "deno");
  }
  return path.join(dir, exe);
}

const deno = denoBinary();
if (!fs.existsSync(deno)) {
  process.stderr.write(
    `error[internal]: the Deno binary was not found at ${deno}. Nothing was run. Run \`npm ci\` in ${root} to install it, then run the command again.\n`,
  );
  process.exit(70);
}

const child = spawn(deno, ["run", "-A", main, ...process.argv.slice(2)], { stdio: "inherit" });
// A SIGTERM or SIGHUP sent to this process is passed on, so the child stops as
// it would. A SIGINT is passed on as a SIGTERM: sent to this process alone
// (`kill -INT <pid>`) it cancels the child all the same, and where Ctrl-C
// reaches the child too (the terminal signals the whole process group) the
// child takes the two as one, since only a second signal of the same kind
// makes it exit at once (cli/main.ts).
const handlers = {
  SIGINT: () => child.kill("SIGTERM"),
  SIGTERM: () => child.kill("SIGTERM"),
  SIGHUP: () => child.kill("SIGHUP"),
};
for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
child.on("error", (e) => {
  process.stderr.write(
    `error[internal]: could not start ${deno} (${e.message}). Nothing was run.\n`,
  );
  process.exit(70);
});
child.on("exit", (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  // Ended by a signal: end the same way (never 0), this process's own handler removed first.
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  const numbers = require("node:os").constants.signals;
  process.exit(128 + (numbers[signal] ?? 1));
});
