/**
 * Facts about the machine a bench run measured on, printed beside the
 * figures: cores, load average at the start and the end, and where the
 * temporary caches live: the directory, its filesystem, and what making one
 * directory there costs.
 *
 * The last matters for every section that writes a cache: one machine's
 * `/tmp` was measured making a directory in 350 to 830 µs, against about
 * 35 µs on another disk of the same machine and 4 µs on tmpfs. A pull that
 * makes two directories per file pays that on either side of a comparison,
 * but not in the same proportion as the requests. Run with
 * `TMPDIR=/dev/shm` to measure without the disk.
 *
 * @module
 */

/** The mount holding a path: its mount point and filesystem type. */
export interface Mount {
  readonly mountPoint: string;
  readonly fsType: string;
}

/**
 * The mount of `path` in `/proc/mounts` text: the longest mount point that
 * is `path` or one of its parents. Octal escapes (`\040` for a space) are
 * decoded. Null when no line matches.
 */
export function mountOf(path: string, mountsText: string): Mount | null {
  let best: Mount | null = null;
  for (const line of mountsText.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 3) continue;
    const mountPoint = fields[1].replace(
      /\\([0-7]{3})/g,
      (_, oct: string) => String.fromCharCode(parseInt(oct, 8)),
    );
    const inside = mountPoint === "/" || path === mountPoint ||
      path.startsWith(mountPoint + "/");
    if (inside && (best === null || mountPoint.length >= best.mountPoint.length)) {
      best = { mountPoint, fsType: fields[2] };
    }
  }
  return best;
}

/** Median microseconds to make one directory (and remove it) under `root`. */
function mkdirMicros(root: string, count = 200): number {
  const probe = Deno.makeTempDirSync({ dir: root, prefix: "sluice-bench-probe-" });
  try {
    const each: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      Deno.mkdirSync(`${probe}/d${i}`);
      each.push((performance.now() - t) * 1000);
    }
    each.sort((a, b) => a - b);
    return Math.round(each[Math.floor(each.length / 2)]);
  } finally {
    Deno.removeSync(probe, { recursive: true });
  }
}

/** What {@link machineFacts} prints. */
export interface MachineFacts {
  readonly cores: number;
  readonly loadAverage: readonly number[];
  readonly tempRoot: string;
  readonly tempFilesystem: string;
  readonly mkdirMicrosInTemp: number;
}

/** The machine's facts now (the temporary directory is `TMPDIR`, else `/tmp`). */
export function machineFacts(env: Pick<typeof Deno.env, "get"> = Deno.env): MachineFacts {
  const tempRoot = Deno.realPathSync(env.get("TMPDIR") || "/tmp");
  let tempFilesystem = "unknown";
  try {
    const mount = mountOf(tempRoot, Deno.readTextFileSync("/proc/mounts"));
    if (mount) tempFilesystem = `${mount.fsType} (mounted at ${mount.mountPoint})`;
  } catch {
    // No /proc/mounts (not Linux): the type stays unknown.
  }
  return {
    cores: navigator.hardwareConcurrency,
    loadAverage: Deno.loadavg().map((l) => Math.round(l * 100) / 100),
    tempRoot,
    tempFilesystem,
    mkdirMicrosInTemp: mkdirMicros(tempRoot),
  };
}
