/**
 * The owner's side of a front end served by several threads (the `workers` option of `serve()`
 * and `serveOpenAI()`): the thread that called it serves as worker 0 and starts `workers − 1`
 * worker threads, each attached to the same Triton (`Server.share()` / `Server.attach()`) and
 * listening on the same port with `reusePort` (Linux's `SO_REUSEPORT`: the kernel spreads new
 * connections over the listeners). See serve_worker.ts for the worker's side.
 *
 * What the pool keeps one for the whole service:
 * - protocol state, by {@link StateChanges} (state_changes.ts): a worker sends each change to
 *   the owner, which applies it, then has every worker apply it ({@link WorkerPool.mirror}),
 *   then answers; a starting worker first applies the owner's state as it is then;
 * - its life: closing the service closes every worker's listener and calls (each with the same
 *   `timeoutMs`), stops its attached server, then ends its thread; a worker that dies, or cannot
 *   apply a change, fails the whole service (see {@link PoolArgs.failed}): the others are
 *   closed, never left to answer fewer calls on the port.
 *
 * Messages, owner to worker: `start`, `mirror`, `changed` (the answer to a change), `close`,
 * `crash` (tests only); worker to owner: `listening`, `failed`, `change`, `mirrored`, `closed`.
 *
 * @module
 */
import type { Server } from "../../src/server.ts";
import type { SharedServerHandle } from "../../src/shared_server.ts";
import { TritonError } from "../../src/errors.ts";
import { type ErrorMessage, errorMessage, errorOf, type StateChange } from "./state_changes.ts";
import { spawnWorker, type WorkerThread } from "./worker_threads.ts";

/** What a worker is told when it starts. */
export interface StartMessage {
  readonly kind: "start";
  /** Its index among the service's threads (the owner is 0). */
  readonly index: number;
  readonly handle: SharedServerHandle;
  readonly hostname: string;
  readonly port: number;
  /** The front end's options, less `signal` and `workers`. */
  readonly options: unknown;
  /** Requests taken, one `Int32Array` slot per thread. */
  readonly counters: SharedArrayBuffer;
  /** The owner's protocol state now. */
  readonly snapshot: readonly StateChange[];
}

/** What {@link WorkerPool.start} needs. */
export interface PoolArgs {
  /** The function served, for messages (`"serve()"`). */
  readonly what: string;
  readonly server: Server;
  /** The front end's worker module (it calls `runServeWorker`). */
  readonly entry: URL;
  /** Threads in all, the owner included (>= 2). */
  readonly threads: number;
  readonly hostname: string;
  readonly port: number;
  readonly options: unknown;
  readonly counters: SharedArrayBuffer;
  /** Applies a change a worker sent (the owner's {@link StateChanges.change}). */
  change(op: string, args: readonly unknown[]): Promise<unknown>;
  /** The owner's protocol state now. */
  snapshot(): StateChange[];
  /** Called once when a worker died or could not apply a change, with the error to report. */
  failed(error: TritonError): void;
}

/** Acknowledgements awaited from one worker, by id. */
type Pending = Map<number, { resolve(value: unknown): void; reject(e: TritonError): void }>;

interface Member {
  readonly index: number;
  readonly thread: WorkerThread;
  readonly pending: Pending;
  /** Resolves when the worker said `closed` (or is gone). */
  closed: Promise<void>;
  onClosed: () => void;
  gone: boolean;
}

/** The worker threads of one service (the owner is not among them). */
export class WorkerPool {
  readonly #args: PoolArgs;
  readonly #members: Member[] = [];
  #nextId = 1;
  #closing = false;
  #failed = false;
  /** Mirrors not yet acknowledged by every worker. */
  readonly #outstanding = new Set<Promise<void>>();

  /** A pool of no worker yet ({@link start} starts them). */
  constructor(args: PoolArgs) {
    this.#args = args;
  }

  /**
   * Starts `threads − 1` workers and resolves once each listens. A change mirrored meanwhile
   * reaches every worker started (after the state it started from).
   * @throws {TritonError} the first worker's error when one cannot attach or listen (every
   *   worker started is ended first).
   */
  async start(): Promise<void> {
    const args = this.#args;
    const handle = args.server.share();
    const ready: Promise<void>[] = [];
    try {
      for (let index = 1; index < args.threads; index++) {
        ready.push((await this.#spawn(index, handle)).ready);
      }
      await Promise.all(ready);
    } catch (e) {
      this.#closing = true;
      await Promise.all(this.#members.map((m) => m.thread.terminate()));
      throw e;
    }
  }

  async #spawn(
    index: number,
    handle: SharedServerHandle,
  ): Promise<{ readonly ready: Promise<void> }> {
    const args = this.#args;
    let listening!: () => void;
    let refused!: (e: TritonError) => void;
    const ready = new Promise<void>((resolve, reject) => {
      listening = resolve;
      refused = reject;
    });
    ready.catch(() => {});
    // Assigned once the thread exists; its events reach it only after that.
    // deno-lint-ignore prefer-const
    let member!: Member;
    const thread = await spawnWorker(args.entry, {
      message: (data) =>
        this.#onMessage(member, data as Record<string, unknown>, listening, refused),
      died: (reason) => {
        const error = new TritonError(
          "INTERNAL",
          `${args.what}: worker ${index} of ${args.threads} died (${reason})`,
        );
        refused(error);
        this.#gone(member, error);
        if (!this.#closing) this.#fail(error);
      },
    });
    let onClosed!: () => void;
    const closed = new Promise<void>((resolve) => (onClosed = resolve));
    member = { index, thread, pending: new Map(), closed, onClosed, gone: false };
    this.#members.push(member);
    const start: StartMessage = {
      kind: "start",
      index,
      handle,
      hostname: args.hostname,
      port: args.port,
      options: args.options,
      counters: args.counters,
      snapshot: args.snapshot(),
    };
    thread.post(start);
    return { ready };
  }

  #onMessage(
    member: Member,
    m: Record<string, unknown>,
    listening: () => void,
    refused: (e: TritonError) => void,
  ): void {
    switch (m.kind) {
      case "listening":
        return listening();
      case "failed":
        return refused(errorOf(m.error as ErrorMessage));
      case "change": {
        const id = m.id as number;
        this.#args.change(m.op as string, m.args as unknown[]).then(
          (value) => member.thread.post({ kind: "changed", id, value }),
          (e) => member.thread.post({ kind: "changed", id, error: errorMessage(e) }),
        );
        return;
      }
      case "mirrored": {
        const waiter = member.pending.get(m.id as number);
        member.pending.delete(m.id as number);
        if (m.error === undefined) waiter?.resolve(m.value);
        else waiter?.reject(errorOf(m.error as ErrorMessage));
        return;
      }
      case "closed":
        return member.onClosed();
    }
  }

  /** A worker is gone: what it was to acknowledge fails, its close is over. */
  #gone(member: Member, error: TritonError): void {
    member.gone = true;
    for (const waiter of member.pending.values()) waiter.reject(error);
    member.pending.clear();
    member.onClosed();
  }

  #fail(error: TritonError): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#args.failed(error);
  }

  /**
   * Has every worker apply a change the owner made; resolves once all did.
   * A worker that cannot fails the service (its error is the rejection too).
   */
  mirror(op: string, args: readonly unknown[]): Promise<void> {
    const all = this.gather(op, args).then(() => {});
    this.#outstanding.add(all);
    const done = () => this.#outstanding.delete(all);
    all.then(done, done);
    return all;
  }

  /** Asks every worker `op` (its {@link StateApplier.mirror}); resolves with their answers. A
   * worker that cannot answer fails the service (its error is the rejection too). */
  gather(op: string, args: readonly unknown[]): Promise<unknown[]> {
    const acks = this.#members.filter((m) => !m.gone).map((m) => {
      const id = this.#nextId++;
      const ack = new Promise<unknown>((resolve, reject) => m.pending.set(id, { resolve, reject }));
      m.thread.post({ kind: "mirror", id, op, args });
      return ack.catch((e: TritonError) => {
        const error = new TritonError(
          "INTERNAL",
          `${this.#args.what}: worker ${m.index} could not apply ${op}: ${e.message}`,
        );
        if (!this.#closing) this.#fail(error);
        throw error;
      });
    });
    return Promise.all(acks);
  }

  /** Resolves once every change mirrored so far is applied in every worker. */
  async settled(): Promise<void> {
    await Promise.all([...this.#outstanding]);
  }

  /**
   * Closes every worker: its listener and calls (`timeoutMs` as `close()`'s), its attached
   * server, then its thread.
   */
  async close(timeoutMs: number | undefined): Promise<void> {
    this.#closing = true;
    for (const m of this.#members) if (!m.gone) m.thread.post({ kind: "close", timeoutMs });
    await Promise.all(this.#members.map(async (m) => {
      await m.closed;
      await m.thread.terminate();
    }));
  }

  /** @internal Tests: makes worker `index` throw an uncaught error, or ends its thread. */
  kill(index: number, how: "crash" | "terminate"): Promise<void> {
    const m = this.#members.find((m) => m.index === index);
    if (m === undefined) throw new RangeError(`no worker ${index}`);
    if (how === "crash") {
      m.thread.post({ kind: "crash" });
      return Promise.resolve();
    }
    return m.thread.terminate(false);
  }
}
