/**
 * The setup and options types of the lock conformance suite, and the two
 * identities its cases lock as. Re-exported from `lock_conformance.ts`.
 *
 * @module
 */
import type {
  Clock,
  DistributedLock,
  Identity,
  LockBackend,
  ObjectStore,
} from "../../sync/ports.ts";
import type { FakeClock } from "./fake_clock.ts";

/** What `make()` returns for each case: a fresh backend and how to drive it. */
export interface LockConformanceSetup {
  /** The backend under test. */
  readonly backend: LockBackend;
  /** The clock the backend's locks use. */
  readonly clock: FakeClock | Clock;
  /** True when `clock` is a FakeClock the suite advances; false for real time. */
  readonly fake: boolean;
  /** The store under the locks, if any: leftover lock objects are deleted from it after each case. */
  readonly store?: ObjectStore;
  /**
   * Makes a holder crash: it must stop renewing `lock` and never release it.
   * Optional for engine locks (their `abandon()` is used); required otherwise
   * for the stale-lock case.
   */
  readonly crash?: (lock: DistributedLock) => void | Promise<void>;
  /** Makes every read of the lock object fail (transport error); required for the inspect case. */
  readonly breakReads?: () => void | Promise<void>;
  /** Undoes {@link LockConformanceSetup.breakReads}. */
  readonly healReads?: () => void | Promise<void>;
  /** Runs after each case (close clients, remove temp dirs). */
  readonly cleanup?: () => Promise<void>;
}

/** Options of {@link lockConformance}. */
export interface LockConformanceOptions {
  /** Deno's op and resource sanitizers; default true. */
  readonly sanitize?: boolean;
  /** TTL of every lock; default 1 500 ms (small enough for real-time runs). */
  readonly ttlMs?: number;
  /** Prefix of the lock keys (each case uses its own random key); default `conformance/`. */
  readonly keyPrefix?: string;
  /** Registers the cases as ignored (e.g. when a server binary is missing). */
  readonly ignore?: boolean;
}

/** The two identities the cases use. */
export const CONFORMANCE_IDENTITIES: { readonly a: Identity; readonly b: Identity } = {
  a: { holder: "alice@host-a", hostname: "host-a", pid: 101 },
  b: { holder: "bob@host-b", hostname: "host-b", pid: 202 },
};

/** Which of {@link CONFORMANCE_IDENTITIES} a case locks as. */
export type Who = keyof typeof CONFORMANCE_IDENTITIES;
