import assert from "node:assert/strict";
import { commandFailure } from "./command_kit.ts";
import { ConfigError, SluiceError, UnreachableError } from "../sync/errors.ts";
import { ioError } from "../packages/fs/fs_helpers.ts";

Deno.test("an unreachable datastore met by a push keeps what the push said it committed, with the command to run again", () => {
  const e = new UnreachableError("timed out after 1000 ms");
  e.message += " The push's other 1437 file(s) were pushed and committed.";
  const told = commandFailure(e, { argv: ["push", "--cache", "my cache"] }, "push");
  assert.ok(told instanceof SluiceError);
  assert.equal(told.code, "unreachable");
  assert.match(
    told.message,
    /stays published\. The push's other 1437 file\(s\) were pushed and committed\. Check the endpoint/,
  );
  assert.match(told.message, /run `sluice push --cache 'my cache'` again\.$/);
});

Deno.test("an unreachable datastore with nothing added says the command's account alone", () => {
  const told = commandFailure(new UnreachableError("refused"), { argv: ["pull"] }, "pull");
  assert.ok(told instanceof SluiceError);
  assert.match(told.message, /the rest are fetched by the next pull\)\. Check the endpoint/);
});

Deno.test("a configuration field's error names the store URL on the command line, not the datastore configuration", () => {
  const told = commandFailure(
    new ConfigError("store.endpoint", "an http:// URL"),
    { argv: [] },
    "pull",
  );
  assert.ok(told instanceof SluiceError);
  assert.match(
    told.message,
    /fix the store URL \(as given, or as the cache recorded it\) and run the command again\.$/,
  );
  assert.doesNotMatch(told.message, /datastore configuration/);
  const option = commandFailure(new ConfigError("--pid", "a number"), { argv: [] }, "pull");
  assert.match((option as Error).message, /correct the option/);
});

Deno.test("a credentials error on the command line is not told to fix the store URL, which holds no credentials", () => {
  for (
    const e of [
      // What the stores throw for missing or refused credentials (store_kit's failure_errors.ts).
      new ConfigError(
        "credentials",
        "no credentials were found for the list of s3://b/p (no AWS credentials), so no request was sent and nothing was read or written; provide credentials to the store",
      ),
      new ConfigError(
        "credentials",
        "S3 refused the list of s3://b/p (AccessDenied); check the credentials and their permissions on the bucket",
      ),
    ]
  ) {
    const told = commandFailure(e, { argv: [] }, "pull") as Error;
    assert.doesNotMatch(told.message, /fix the store URL/, told.message);
  }
});

Deno.test("a credentials error a push told more of after it still names the environment, not the datastore configuration", () => {
  const e = new ConfigError("credentials", "credentials the endpoint accepts");
  e.message += " Nothing else of this push was committed.";
  const told = commandFailure(e, { argv: ["push", "b.txt"] }, "push") as Error;
  assert.match(told.message, /fix the credentials in the environment the command runs in/);
  assert.match(told.message, /Nothing else of this push was committed\.$/);
  assert.doesNotMatch(told.message, /datastore configuration/);
});

Deno.test("a file:// store whose disk is full, or which this user may not write, is told to free space or fix the directory, not to check the network", () => {
  const full = ioError(
    "writing",
    "/srv/store/tmp/1.tmp",
    Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" }),
  );
  const told = commandFailure(full, { argv: ["push", "--cache", "c"] }, "push") as SluiceError;
  assert.equal(told.code, "unreachable");
  assert.match(told.message, /writing \/srv\/store\/tmp\/1\.tmp failed \(No space left on device/);
  assert.match(told.message, /stays published\./);
  assert.match(told.message, /Free space on the disk that holds the store's directory/);
  assert.doesNotMatch(told.message, /the network/);
  assert.match(told.message, /run `sluice push --cache c` again\.$/);
  const denied = ioError("writing", "/srv/store/a", new Deno.errors.PermissionDenied("EACCES"));
  const deniedTold = commandFailure(denied, { argv: ["push"] }, "push") as SluiceError;
  assert.match(deniedTold.message, /Make the store's directory writable by this user/);
  assert.doesNotMatch(deniedTold.message, /the network/);
});
