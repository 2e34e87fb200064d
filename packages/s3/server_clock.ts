/**
 * The server's clock for the S3 store: the `Date` header of a response,
 * recorded by a per-command middleware ({@link captureDate}), so that the
 * time a put reports is the endpoint's, not this machine's, whose clock may
 * be skewed (lock staleness compares it with the store's last-modified times).
 *
 * @module
 */

/** Names of the per-command middleware that records the response's `Date` header. */
const DATE_MIDDLEWARE = "sluiceResponseDate";

/** The part of a command's middleware stack that {@link captureDate} uses. */
interface DeserializeStack {
  add(
    middleware: (
      next: (args: unknown) => Promise<{ response: unknown }>,
    ) => (args: unknown) => Promise<{ response: unknown }>,
    options: { step: "deserialize"; name: string; override: boolean },
  ): void;
}

/** Records the `Date` header of a command's response (the server's clock). */
export function captureDate(command: { middlewareStack: unknown }): () => number | undefined {
  let serverDate: number | undefined;
  (command.middlewareStack as DeserializeStack).add(
    (next) => async (args) => {
      const result = await next(args);
      const headers = (result.response as { headers?: Record<string, string> } | undefined)
        ?.headers;
      const date = headers?.date ? Date.parse(headers.date) : NaN;
      if (!Number.isNaN(date)) serverDate = date;
      return result;
    },
    { step: "deserialize", name: DATE_MIDDLEWARE, override: true },
  );
  return () => serverDate;
}
