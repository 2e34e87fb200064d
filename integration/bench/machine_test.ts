import { deepStrictEqual, strictEqual } from "node:assert";
import { mountOf } from "./machine.ts";

const MOUNTS = [
  "/dev/sda1 / ext4 rw,relatime 0 0",
  "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0",
  "/dev/sdb1 /var/tmp xfs rw 0 0",
  "/dev/sdc1 /mnt/my\\040disk btrfs rw 0 0",
  "",
].join("\n");

Deno.test("mountOf: the longest mount point that holds the path", () => {
  deepStrictEqual(mountOf("/dev/shm/x", MOUNTS), { mountPoint: "/dev/shm", fsType: "tmpfs" });
  deepStrictEqual(mountOf("/var/tmp", MOUNTS), { mountPoint: "/var/tmp", fsType: "xfs" });
  deepStrictEqual(mountOf("/tmp/a", MOUNTS), { mountPoint: "/", fsType: "ext4" });
});

Deno.test("mountOf: a sibling with the same prefix is not inside", () => {
  deepStrictEqual(mountOf("/var/tmpx/a", MOUNTS), { mountPoint: "/", fsType: "ext4" });
});

Deno.test("mountOf: octal escapes in mount points; no lines, no mount", () => {
  deepStrictEqual(mountOf("/mnt/my disk/c", MOUNTS), {
    mountPoint: "/mnt/my disk",
    fsType: "btrfs",
  });
  strictEqual(mountOf("/tmp", ""), null);
});
