/**
 * `--only extension`: the swamp extension adapter against Sluice's own API
 * on MinIO (see `extension.ts`), `--ext-files` files (default 1 000).
 *
 * Prints `extension`.
 *
 * @module
 */
import { benchExtension } from "./extension.ts";
import type { BenchArgs, BenchSection } from "./helpers.ts";

/** The section. */
export const section: BenchSection = {
  async run(args: BenchArgs) {
    return {
      extension: await benchExtension({
        files: args.num("ext-files", 1_000),
        rounds: args.rounds,
      }),
    };
  },
};
