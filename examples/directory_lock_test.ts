/**
 * The third-party directory lock proves itself with Sluice's lock
 * conformance suite, as any lock author would.
 */
import { directoryLockBackend } from "./directory_lock.ts";
import { FakeClock, lockConformance } from "../packages/testing/mod.ts";

lockConformance("directory lock (third-party example)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-dirlock-" });
  const clock = new FakeClock();
  let broken = false;
  const backend = directoryLockBackend({
    dir,
    clock,
    readFile: (p) =>
      broken ? Promise.reject(new Error("injected read failure")) : Deno.readTextFile(p),
  });
  return {
    backend,
    clock,
    fake: true,
    // A crashed holder stops renewing and never releases.
    crash: (lock) => (lock as unknown as { abandon(): void }).abandon(),
    breakReads: () => {
      broken = true;
    },
    healReads: () => {
      broken = false;
    },
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}, { sanitize: false });
