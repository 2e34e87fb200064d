/**
 * The on-disk format of one `FsStore` object: a single file that holds
 * a one-line header (version, size, time, metadata) followed by the body.
 * Version and bytes live in the same file, which is only ever published by
 * an atomic `link` or `rename`, so a reader can never pair the bytes of one
 * version with the version id of another.
 *
 * ```
 * SLUICE-OBJECT/1 {"version":"…","size":3,"lastModified":1767225600000,"metadata":{}}\n
 * <size bytes of body>
 * ```
 *
 * @module
 */
import { SluiceError } from "../../sync/errors.ts";
import type { ObjectInfo } from "../../sync/ports.ts";

const MAGIC = "SLUICE-OBJECT/1 ";
const MAGIC_BYTES = new TextEncoder().encode(MAGIC);
const NEWLINE = 0x0a;
/** Longest header accepted (the metadata is the only unbounded part). */
const MAX_HEADER_BYTES = 1024 * 1024;

/** What the header of an object file records. */
export interface ObjectHeader {
  /** Version id of these bytes. */
  readonly version: string;
  /** Body size in bytes. */
  readonly size: number;
  /** Write time, ms since the epoch, by the writing store's clock. */
  readonly lastModified: number;
  /** User metadata. */
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * A file under a store's `objects/` directory is not a valid object file
 * (foreign file, truncated by hand, header unreadable).
 */
export class CorruptObjectError extends SluiceError {
  /** The offending file. */
  readonly path: string;
  constructor(path: string, reason: string) {
    super(
      "corrupt_download",
      `The object file ${path} is not a valid Sluice object (${reason}). It was left as it is and nothing was read from it; move it out of the store's objects directory or delete it, then run the command again.`,
    );
    this.path = path;
  }
}

/** The header line of an object file (magic, JSON, newline). */
export function encodeHeader(header: ObjectHeader): Uint8Array {
  return new TextEncoder().encode(
    `${MAGIC}${
      JSON.stringify({
        version: header.version,
        size: header.size,
        lastModified: header.lastModified,
        metadata: header.metadata,
      })
    }\n`,
  );
}

/**
 * Encodes an object file: header line plus body.
 *
 * @example
 * ```ts
 * import { decodeObject, encodeObject } from "./object_file.ts";
 * const file = encodeObject(
 *   { version: "v1", size: 2, lastModified: 0, metadata: {} },
 *   new TextEncoder().encode("hi"),
 * );
 * decodeObject("x", file).header.version; // "v1"
 * ```
 */
export function encodeObject(header: ObjectHeader, body: Uint8Array): Uint8Array {
  const line = encodeHeader(header);
  const out = new Uint8Array(line.length + body.length);
  out.set(line, 0);
  out.set(body, line.length);
  return out;
}

/** Splits a whole object file into header and body; `path` names it in errors. */
export function decodeObject(
  path: string,
  file: Uint8Array,
): { header: ObjectHeader; body: Uint8Array } {
  const nl = findHeaderEnd(path, file);
  const header = parseHeader(path, file.subarray(0, nl));
  const body = file.subarray(nl + 1);
  if (body.length !== header.size) {
    throw new CorruptObjectError(path, `body is ${body.length} bytes, header says ${header.size}`);
  }
  return { header, body };
}

/**
 * Reads only the header of the object file at `path` and checks the file's
 * size against it. Filesystem errors (missing file, …) propagate unchanged.
 */
export async function readObjectHeader(path: string): Promise<ObjectHeader> {
  using file = await Deno.open(path, { read: true });
  return (await readHeaderOf(path, file)).header;
}

/**
 * Reads the header from an open object file; `bodyOffset` is where the body
 * starts. The file's size is checked against the header.
 */
export async function readHeaderOf(
  path: string,
  file: Deno.FsFile,
): Promise<{ header: ObjectHeader; bodyOffset: number }> {
  let buf = new Uint8Array(0);
  const chunk = new Uint8Array(4096);
  for (;;) {
    const at = buf.indexOf(NEWLINE);
    if (at >= 0) {
      const header = parseHeader(path, buf.subarray(0, at));
      const { size } = await file.stat();
      if (size !== at + 1 + header.size) {
        throw new CorruptObjectError(
          path,
          `file is ${size} bytes, header says ${at + 1} + ${header.size}`,
        );
      }
      return { header, bodyOffset: at + 1 };
    }
    if (buf.length > MAX_HEADER_BYTES) throw new CorruptObjectError(path, "header too long");
    const n = await file.read(chunk);
    if (n === null) throw new CorruptObjectError(path, "no header line");
    const next = new Uint8Array(buf.length + n);
    next.set(buf, 0);
    next.set(chunk.subarray(0, n), buf.length);
    buf = next;
  }
}

/** The object's info from its header. */
export function infoOf(key: string, header: ObjectHeader): ObjectInfo {
  return {
    key,
    version: header.version,
    size: header.size,
    lastModified: header.lastModified,
    metadata: { ...header.metadata },
  };
}

function findHeaderEnd(path: string, file: Uint8Array): number {
  const nl = file.subarray(0, MAX_HEADER_BYTES + 1).indexOf(NEWLINE);
  if (nl < 0) throw new CorruptObjectError(path, "no header line");
  return nl;
}

function parseHeader(path: string, line: Uint8Array): ObjectHeader {
  if (
    line.length < MAGIC_BYTES.length ||
    !MAGIC_BYTES.every((b, i) => line[i] === b)
  ) {
    throw new CorruptObjectError(path, "missing the SLUICE-OBJECT/1 header");
  }
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(line.subarray(MAGIC_BYTES.length)));
  } catch {
    throw new CorruptObjectError(path, "header is not JSON");
  }
  if (typeof raw !== "object" || raw === null) throw new CorruptObjectError(path, "bad header");
  const h = raw as Record<string, unknown>;
  const metadata = h.metadata ?? {};
  if (
    typeof h.version !== "string" || h.version === "" ||
    typeof h.size !== "number" || !Number.isSafeInteger(h.size) || h.size < 0 ||
    typeof h.lastModified !== "number" ||
    typeof metadata !== "object" || metadata === null ||
    !Object.values(metadata).every((v) => typeof v === "string")
  ) {
    throw new CorruptObjectError(path, "header fields have the wrong types");
  }
  return {
    version: h.version,
    size: h.size,
    lastModified: h.lastModified,
    metadata: metadata as Record<string, string>,
  };
}
