/**
 * The npm command (`bin/sluice.cjs`, what `npx sluice` runs) stopped by a
 * signal sent to it alone, as a process manager or a CI runner sends it: the
 * command is cancelled as by Ctrl-C and ends with `aborted` (130), never 0.
 * A Ctrl-C, which reaches the command's whole process group, cancels it once:
 * the child does not take it for a second one, which would exit at once.
 * The endpoint holds every request open, so the command is surely in flight
 * when the signal comes.
 */
import assert from "node:assert/strict";
import { waitFor } from "../packages/testing/mod.ts";
import { HeldRequests } from "./held_requests.ts";

const BIN = new URL("../bin/sluice.cjs", import.meta.url).pathname;

/**
 * Runs a pull through the npm command against an endpoint that never answers,
 * sends `signal` once the first request is in (to the command's pid, or to its
 * whole process group as a terminal's Ctrl-C does), and checks that it was
 * cancelled cleanly: `aborted`, exit 130.
 */
async function stoppedBy(signal: Deno.Signal, to: "pid" | "group"): Promise<void> {
  const seen: string[] = [];
  const held = new HeldRequests();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(req.method);
    return held.hold(req);
  });
  const base = await Deno.makeTempDir({ prefix: "sluice-cli-signal-" });
  try {
    const port = (server.addr as Deno.NetAddr).port;
    const store = `s3://bkt/p?endpoint=http://127.0.0.1:${port}&timeout=60000&retries=0`;
    const child = new Deno.Command("node", {
      args: [BIN, "pull", "--init", "--cache", `${base}/c`, "--store", store],
      env: { AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "us-east-1" },
      stdout: "piped",
      stderr: "piped",
      // Its own process group, so that the group can be signalled as a terminal does.
      detached: to === "group",
    }).spawn();
    await waitFor(() => seen.length > 0, {
      timeoutMs: 60_000,
      message: "the command never sent its first request",
    });
    if (to === "pid") child.kill(signal);
    else Deno.kill(-child.pid, signal);
    const out = await child.output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 130, err);
    // A command that exited at once (a second signal) says nothing: the message shows it was cancelled.
    assert.match(err, /^error\[aborted\]: /m);
  } finally {
    held.releaseAll();
    await server.shutdown();
    await Deno.remove(base, { recursive: true });
  }
}

for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
  Deno.test(`npx sluice stopped by ${signal}: cancelled cleanly, exit 130, never 0`, async () => {
    await stoppedBy(signal, "pid");
  });
}

Deno.test("npx sluice stopped by Ctrl-C (SIGINT to its process group): cancelled once, cleanly, exit 130", async () => {
  await stoppedBy("SIGINT", "group");
});
