/**
 * The calling thread's side of a front end served by several threads (`serve()`,
 * `serveOpenAI()`, `serveGrpc()` with `workers` > 1), around its {@link WorkerPool}: the changes
 * of protocol state made for the whole service (the owner applies, then every worker), the calls
 * counted per thread, and a `close()` and `closed` that report a worker's death. With one thread
 * it adds nothing: changes are the service's own, and no pool is started.
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import { type CloseOptions, closing, type ClosingSteps } from "./lifecycle.ts";
import type { StateApplier, StateChanges } from "./state_changes.ts";
import { WorkerPool } from "./worker_pool.ts";

/** What the owner's service is given where the service has workers. */
export interface OwnerHooks {
  /** Threads serving the service. */
  readonly threads?: number;
  /** Makes changes of protocol state for the whole service. */
  readonly changes?: StateChanges;
  /** Has every worker apply a change the owner made. */
  readonly mirror?: (op: string, args: readonly unknown[]) => void;
  /** Every worker's answer to `op` (its state's `mirror`). */
  readonly gather?: (op: string, args: readonly unknown[]) => Promise<unknown[]>;
}

/** Where the workers listen, and with what. */
export interface WorkersStart {
  readonly server: Server;
  /** The front end's worker module. */
  readonly entry: URL;
  readonly hostname: string;
  /** The port the owner listens on. */
  readonly port: number;
  /** The options the workers make their services with (structured-cloneable). */
  readonly options: unknown;
}

/** The owner's side of a service of `threads` threads (see the module documentation). */
export class ServiceOwner {
  /** Calls taken, one slot per thread (the owner's is 0). */
  readonly counters: Int32Array;
  readonly #what: string;
  readonly #threads: number;
  readonly #changes: StateChanges;
  #state: StateApplier | undefined;
  #pool: WorkerPool | undefined;
  #failure: TritonError | undefined;
  #onFailure: (error: TritonError) => void = () => {};

  /** @param what the function served, for messages (`"serve()"`). */
  constructor(what: string, threads: number) {
    this.#what = what;
    this.#threads = threads;
    this.counters = new Int32Array(new SharedArrayBuffer(4 * threads));
    this.#changes = {
      change: async (op, args) => {
        const state = this.#state;
        if (state === undefined) throw new TritonError("INTERNAL", `no state change ${op}`);
        const value = await state.apply(op, args);
        await this.#pool?.settled();
        return value;
      },
    };
  }

  /** The hooks of the owner's service: none with one thread. */
  hooks(): OwnerHooks {
    if (this.#threads === 1) return {};
    return {
      threads: this.#threads,
      changes: this.#changes,
      mirror: (op, args) => void this.#pool?.mirror(op, args).catch(() => {}),
      gather: (op, args) => this.#pool?.gather(op, args) ?? Promise.resolve([]),
    };
  }

  /** The owner's protocol state, once its service is made (what workers' changes apply to). */
  setState(state: StateApplier | undefined): void {
    this.#state = state;
  }

  /** The pool, once started (tests end its workers). */
  get pool(): WorkerPool | undefined {
    return this.#pool;
  }

  /**
   * Starts the `threads − 1` workers (none with one thread) and resolves once each listens.
   * @throws {TritonError} the first worker's error when one cannot attach or listen (every
   *   worker started is ended first).
   */
  async startWorkers(start: WorkersStart): Promise<void> {
    if (this.#threads === 1) return;
    this.#pool = new WorkerPool({
      what: this.#what,
      ...start,
      threads: this.#threads,
      counters: this.counters.buffer as SharedArrayBuffer,
      change: (op, args) => this.#changes.change(op, args),
      snapshot: () => this.#state?.snapshot() ?? [],
      failed: (error) => this.#onFailure(error),
    });
    await this.#pool.start();
  }

  /**
   * The service's `close()` and `closed` over the owner's `steps` (lifecycle.ts `closing()`),
   * closing the workers alongside. A worker's death closes the whole service at once (the error
   * printed), and `closed` and every `close()` reject with its error.
   */
  lifecycle(steps: ClosingSteps, signal: AbortSignal | undefined): {
    close(options?: CloseOptions): Promise<void>;
    closed: Promise<void>;
  } {
    const { close, closed } = closing({
      ...steps,
      alongside: (timeoutMs) => this.#pool?.close(timeoutMs) ?? Promise.resolve(),
    }, signal);
    const orFailure = <T>(p: Promise<T>): Promise<T> =>
      p.then((value) => {
        if (this.#failure !== undefined) throw this.#failure;
        return value;
      });
    const closedOrFailed = orFailure(closed);
    closedOrFailed.catch(() => {}); // the user's to await; never an unhandled rejection
    this.#onFailure = (error) => {
      if (this.#failure !== undefined) return;
      this.#failure = error;
      console.error(`tritonffi: ${error.message}; closing the whole service`);
      void close({ timeoutMs: 0 }).catch(() => {});
    };
    return { close: (options) => orFailure(close(options)), closed: closedOrFailed };
  }

  /** Calls each thread has taken so far, the owner first. */
  requestsPerWorker(): number[] {
    const counters = this.counters;
    return Array.from(counters, (_, i) => Atomics.load(counters, i));
  }
}
