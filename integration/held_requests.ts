/**
 * Requests a loopback test endpoint never answers: each is held until the
 * client gives up on it (its signal aborts) or the test ends.
 *
 * @module
 */

/** Holds requests open; {@link HeldRequests.releaseAll} answers the ones left (503). */
export class HeldRequests {
  readonly #held = new Set<() => void>();

  /** A response that comes only when `req` is aborted, or at {@link HeldRequests.releaseAll}. */
  hold(req: Request): Promise<Response> {
    return new Promise<Response>((resolve) => {
      const done = () => {
        this.#held.delete(done);
        resolve(new Response(null, { status: 503 }));
      };
      this.#held.add(done);
      req.signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Answers every request still held (before the server shuts down). */
  releaseAll(): void {
    for (const done of [...this.#held]) done();
  }
}
