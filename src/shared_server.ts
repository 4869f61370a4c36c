/**
 * A server shared with worker threads: the plain handle `Server.share()` gives
 * ({@link SharedServerHandle}), the state every thread sees through it ({@link SharedState}, a
 * `SharedArrayBuffer` read and written with `Atomics`), and a worker's use of it
 * ({@link Attachment}).
 *
 * The rule that keeps the `TRITONSERVER_Server` alive while a worker uses it: a worker counts a
 * *use* (`USES` + 1) before it touches the server, then reads `STOPPING`; the owner's `stop()`
 * sets `STOPPING`, then waits for `USES` to reach 0 before `TRITONSERVER_ServerStop` and
 * `…Delete`. Both sides use sequentially consistent atomics, so either the worker sees
 * `STOPPING` (and touches nothing), or the owner sees its use (and waits). A worker holds a use:
 * - for one synchronous call (metadata, statistics, readiness, building a request): from the call
 *   until its microtasks run;
 * - while it has anything native of the server (a request in flight, a response not yet deleted,
 *   a delete queued): from its first request until all of that is gone and its deletes drained;
 * - for a repository operation running off its thread, until it settles.
 *
 * Every thread sharing the server adds its responses delivered and requests released to
 * `CALLBACKS`, so that a thread's wait before a call that may unload a model (`EXECUTE_GRACE_MS`
 * of `server_children.ts`: the stop, `unloadModel`) waits out every thread's last callbacks.
 *
 * A worker notices `STOPPING` by a timer that runs only while it holds a use (every
 * {@link WATCH_MS}): it then ends its streams `UNAVAILABLE`, cancels their requests, waits for
 * Triton to release them, deletes its responses and drops its use.
 *
 * @module
 */
import { env, runtimeName } from "../ffi/mod.ts";
import { TritonError } from "./errors.ts";
import type { ServerOptions } from "./options.ts";
import { describeValue } from "./value_checks.ts";

/** How often a worker that holds a use reads the owner's `STOPPING` flag, ms. */
export const WATCH_MS = 5;

/** The `Int32Array` slots of the shared state. */
const Slot = {
  /** 1 once the owner's `stop()` began: no new use is granted. */
  STOPPING: 0,
  /** Worker servers attached and not yet detached. */
  ATTACHED: 1,
  /** Uses held by workers (see the module documentation). */
  USES: 2,
  /** 1 once the owner deleted the server. */
  DELETED: 3,
  /** Responses delivered and requests released, by every thread (see `EXECUTE_GRACE_MS`). */
  CALLBACKS: 4,
} as const;
const SLOTS = 5;
/** Bytes before the request table (the counters, padded to 8). */
const HEADER = 24;
/** How many workers' requests in flight the table records (further ones are not recorded: the
 * owner cannot cancel them). */
export const REQUEST_SLOTS = 8192;
const BYTES = HEADER + REQUEST_SLOTS * 8;
/** How long the owner's `stop()` lets workers end their own streams before it cancels the
 * requests still recorded (those of a worker that ended or was terminated), ms. */
export const CANCEL_AFTER_MS = 100;

/** What {@link SharedServerHandle.kind} always is. */
export const HANDLE_KIND = "tritonffi.SharedServer";

/**
 * A running server's handle for worker threads, made by `Server.share()` and given to
 * `Server.attach()` in a worker: a plain, structured-cloneable object (post it with
 * `worker.postMessage(handle)`; its `state` is shared, not copied). Only a handle `share()` made
 * is valid: its `server` address is used as it is.
 */
export interface SharedServerHandle {
  /** Always {@link HANDLE_KIND}. */
  readonly kind: typeof HANDLE_KIND;
  /** The path of the `libtritonserver.so` the server runs on (the worker loads the same). */
  readonly library: string;
  /** The `TRITONSERVER_Server*`'s address. */
  readonly server: number;
  /** The options the owner started it with (`server.options` in the worker). */
  readonly options: ServerOptions;
  /** The state every thread sees: see the module documentation. */
  readonly state: SharedArrayBuffer;
}

/** The shared counters, on either side. */
export class SharedState {
  readonly buffer: SharedArrayBuffer;
  readonly #i32: Int32Array;
  /** The request table: each slot 0 (free), a request's address, or that address + 1 while the
   * owner cancels it (addresses are even: the low bit is the lock). */
  readonly #requests: BigInt64Array;
  /** Where this thread looks for a free slot next. */
  #hint = 0;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(BYTES)) {
    this.buffer = buffer;
    this.#i32 = new Int32Array(buffer, 0, SLOTS);
    this.#requests = new BigInt64Array(buffer, HEADER, REQUEST_SLOTS);
  }

  /**
   * A worker: records a request Triton took, so that the owner can cancel it; returns its slot,
   * or -1 when the table is full (the request is then not recorded).
   */
  record(address: number): number {
    const table = this.#requests;
    const value = BigInt(address);
    for (let i = 0; i < REQUEST_SLOTS; i++) {
      const slot = (this.#hint + i) % REQUEST_SLOTS;
      if (table[slot] === 0n && Atomics.compareExchange(table, slot, 0n, value) === 0n) {
        this.#hint = (slot + 1) % REQUEST_SLOTS;
        return slot;
      }
    }
    return -1;
  }

  /**
   * A worker: the request recorded at `slot` is about to be deleted. Waits while the owner is
   * cancelling it (a call of microseconds), so that it is never deleted under that call.
   */
  erase(slot: number, address: number): void {
    if (slot < 0) return;
    const table = this.#requests;
    const value = BigInt(address);
    for (;;) {
      const seen = Atomics.compareExchange(table, slot, value, 0n);
      if (seen !== value + 1n) return; // erased (or, never, not its own)
    }
  }

  /**
   * The owner, stopping: cancels every request recorded (`cancel(address)`,
   * `TRITONSERVER_InferenceRequestCancel`), each under its slot's lock; returns how many.
   */
  cancelRecorded(cancel: (address: number) => void): number {
    const table = this.#requests;
    let n = 0;
    for (let slot = 0; slot < REQUEST_SLOTS; slot++) {
      const value = Atomics.load(table, slot);
      if (value === 0n || (value & 1n) !== 0n) continue;
      if (Atomics.compareExchange(table, slot, value, value + 1n) !== value) continue;
      try {
        cancel(Number(value));
        n++;
      } finally {
        Atomics.store(table, slot, value);
      }
    }
    return n;
  }

  /** Whether the owner's `stop()` began. */
  get stopping(): boolean {
    return Atomics.load(this.#i32, Slot.STOPPING) !== 0;
  }

  /** Uses held by workers now. */
  get uses(): number {
    return Atomics.load(this.#i32, Slot.USES);
  }

  /** Worker servers attached now. */
  get attached(): number {
    return Atomics.load(this.#i32, Slot.ATTACHED);
  }

  /** Takes a use; false (and none taken) when the owner is stopping. */
  enter(): boolean {
    Atomics.add(this.#i32, Slot.USES, 1);
    if (Atomics.load(this.#i32, Slot.STOPPING) === 0) return true;
    Atomics.sub(this.#i32, Slot.USES, 1);
    return false;
  }

  /** Takes one more use while already holding one (the owner cannot have passed its wait). */
  hold(): void {
    Atomics.add(this.#i32, Slot.USES, 1);
  }

  /** Counts a response delivered or a request released, on any thread. */
  bump(): void {
    Atomics.add(this.#i32, Slot.CALLBACKS, 1);
  }

  /** Responses delivered and requests released so far, on every thread (wraps at 2^32). */
  count(): number {
    return Atomics.load(this.#i32, Slot.CALLBACKS);
  }

  /** Gives a use back. */
  leave(): void {
    Atomics.sub(this.#i32, Slot.USES, 1);
  }

  attach(): void {
    Atomics.add(this.#i32, Slot.ATTACHED, 1);
  }

  detach(): void {
    Atomics.sub(this.#i32, Slot.ATTACHED, 1);
  }

  /** The owner: no new use from now on. */
  stop(): void {
    Atomics.store(this.#i32, Slot.STOPPING, 1);
  }

  /** The owner deleted the server. */
  deleted(): void {
    Atomics.store(this.#i32, Slot.DELETED, 1);
  }

  /**
   * The owner, after {@link stop}: resolves true once no worker holds a use, false when
   * `deadline` (a `Date.now()` time) came first. Polls every millisecond or so; after
   * {@link CANCEL_AFTER_MS} it cancels the requests still recorded ({@link cancelRecorded}).
   */
  async drained(deadline: number, cancel: (address: number) => void): Promise<boolean> {
    const cancelAt = Date.now() + CANCEL_AFTER_MS;
    let cancelled = false;
    while (this.uses > 0) {
      const now = Date.now();
      if (!cancelled && now >= cancelAt) {
        cancelled = true;
        this.cancelRecorded(cancel);
      }
      if (now >= deadline) return false;
      await new Promise((r) => setTimeout(r, 1));
    }
    return true;
  }
}

/** The error of a use refused because the owner is stopping or stopped. */
export function ownerStopping(what: string): TritonError {
  return new TritonError(
    "UNAVAILABLE",
    `${what}: the server's owner stopped it (server is stopping or stopped)`,
  );
}

/**
 * Checks that `value` is a handle `Server.share()` made.
 * @throws {TritonError} INVALID_ARG naming what is wrong.
 */
export function checkHandle(value: unknown): SharedServerHandle {
  const bad = (why: string) =>
    new TritonError(
      "INVALID_ARG",
      `Server.attach() takes the handle server.share() returned: ${why}`,
    );
  if (typeof value !== "object" || value === null) throw bad(`got ${typeof value}`);
  const h = value as Record<string, unknown>;
  if (h.kind !== HANDLE_KIND) throw bad(`its kind is not "${HANDLE_KIND}"`);
  if (typeof h.library !== "string" || h.library === "") throw bad("no library path");
  if (typeof h.server !== "number" || !Number.isSafeInteger(h.server) || h.server <= 0) {
    throw bad("no server address");
  }
  if (typeof h.options !== "object" || h.options === null) throw bad("no options");
  if (!(h.state instanceof SharedArrayBuffer) || h.state.byteLength !== BYTES) {
    throw bad("its state is not the SharedArrayBuffer share() made");
  }
  return h as unknown as SharedServerHandle;
}

/** What an {@link Attachment} watches: the worker server's requests and responses. */
export interface AttachedWork {
  /** Whether a request is in flight, a response not yet deleted, or a delete queued. */
  busy(): boolean;
  /** Ends every stream `UNAVAILABLE`, cancels the requests, waits until Triton released them,
   * deletes the responses and drains the deletes (the owner is stopping). */
  close(): Promise<void>;
  /** Drains the deletes queued. */
  drain(): Promise<void>;
}

/** A worker's uses of the shared server; see the module documentation. */
export class Attachment {
  readonly state: SharedState;
  #work: AttachedWork | undefined;
  /** A use held for this turn's synchronous calls. */
  #turn = false;
  /** A use held while {@link AttachedWork.busy}. */
  #held = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #settling = false;
  #closing: Promise<void> | undefined;
  #detached = false;

  constructor(state: SharedState) {
    this.state = state;
  }

  /** Sets what is watched (once, after attaching). */
  watch(work: AttachedWork): void {
    this.#work = work;
  }

  /**
   * Takes a use for the synchronous calls of this turn (given back once its microtasks ran).
   * @throws {TritonError} UNAVAILABLE when the owner is stopping or stopped, or this server
   *   detached.
   */
  enter(what: string): void {
    if (this.#detached) throw new TritonError("UNAVAILABLE", `${what}: server is stopped`);
    if (this.#turn) {
      if (!this.state.stopping) return;
      throw ownerStopping(what);
    }
    if (!this.state.enter()) throw ownerStopping(what);
    this.#turn = true;
    queueMicrotask(() => {
      this.#turn = false;
      this.state.leave();
    });
  }

  /** Native work began (a request was submitted): holds a use until none is left. Call within
   * the turn of an {@link enter}. */
  busy(): void {
    if (this.#held) return;
    this.state.hold(); // within a turn's use: the owner waits for it either way
    this.#held = true;
    this.#timer = setInterval(() => this.#tick(), WATCH_MS);
    unref(this.#timer);
  }

  /** Runs `operation` (started within the turn of an {@link enter}) holding a use until it
   * settles. */
  during<T>(operation: Promise<T>): Promise<T> {
    this.state.hold();
    const leave = () => this.state.leave();
    operation.then(leave, leave);
    return operation;
  }

  /** A request or response went away: gives the use back once nothing is left. */
  maybeIdle(): void {
    if (this.#held && !this.#settling) void this.#settle();
  }

  async #settle(): Promise<void> {
    const work = this.#work!;
    this.#settling = true;
    try {
      while (this.#held && !work.busy()) {
        await work.drain();
        if (work.busy()) break;
        this.#release();
      }
    } finally {
      this.#settling = false;
    }
  }

  #release(): void {
    if (!this.#held) return;
    this.#held = false;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.state.leave();
  }

  #tick(): void {
    // A failure (requests Triton has not released) keeps the use: the owner's stop() reports it.
    if (this.state.stopping) this.close().catch(() => {});
    else if (!this.#work!.busy()) this.maybeIdle();
  }

  /** Ends this worker's work on the server (the owner stopping, or `stop()` here). */
  close(): Promise<void> {
    // The use is given back only once the work ended: while Triton has requests of this
    // thread, the owner must keep waiting.
    this.#closing ??= (async () => {
      await this.#work?.close();
      this.#release();
    })();
    return this.#closing;
  }

  /** This worker's server stops: its work ends, and it counts as attached no more. */
  async detach(): Promise<void> {
    if (this.#detached) return;
    this.#detached = true;
    try {
      await this.close();
    } finally {
      this.state.detach();
    }
  }
}

/** Lets the event loop end while `timer` is pending (Node, Bun, and Deno's `unrefTimer`). */
function unref(timer: ReturnType<typeof setInterval>): void {
  if (typeof timer === "number") {
    (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno?.unrefTimer(timer);
  } else {
    (timer as { unref?: () => void }).unref?.();
  }
}

/** What `Server.attach()` takes beside the handle. */
export interface AttachOptions {
  /**
   * On Bun, attach anyway. Bun's completion ring wakes its thread through a threadsafe
   * `JSCallback`, and its ring producers and response allocator are C that `cc()` compiled in
   * the attaching thread: a worker terminated (or ended) while Triton still holds its requests
   * leaves Triton's threads calling into what that thread owned, which Bun does not promise to
   * keep. A worker whose attached server is stopped before it ends is not at risk. Without this
   * option `TRITONFFI_ALLOW_BUN_WORKERS=1` decides.
   * @default false
   */
  readonly allowBunWorkers?: boolean;
}

/** The variable that opts in to attaching on Bun where `allowBunWorkers` is not given. */
export const ALLOW_BUN_WORKERS_ENV = "TRITONFFI_ALLOW_BUN_WORKERS";

/**
 * Refuses `Server.attach()` on Bun unless opted in (see {@link AttachOptions.allowBunWorkers}).
 * @throws {TritonError} INVALID_ARG for options that are not `{ allowBunWorkers?: boolean }` or a
 *   `TRITONFFI_ALLOW_BUN_WORKERS` other than `0` or `1`; UNSUPPORTED on Bun without the opt-in.
 */
export function checkAttachRuntime(options: unknown): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TritonError(
      "INVALID_ARG",
      `Server.attach() options must be { allowBunWorkers?: boolean }, not ${
        describeValue(options)
      }`,
    );
  }
  const allow = (options as AttachOptions).allowBunWorkers;
  if (allow !== undefined && typeof allow !== "boolean") {
    throw new TritonError(
      "INVALID_ARG",
      `allowBunWorkers must be a boolean, not ${describeValue(allow)}`,
    );
  }
  const fromEnv = allow === undefined ? env(ALLOW_BUN_WORKERS_ENV) : undefined;
  if (fromEnv !== undefined && fromEnv !== "" && fromEnv !== "0" && fromEnv !== "1") {
    throw new TritonError(
      "INVALID_ARG",
      `${ALLOW_BUN_WORKERS_ENV} must be 0 or 1, not ${JSON.stringify(fromEnv)}`,
    );
  }
  if (runtimeName() !== "bun" || (allow ?? fromEnv === "1")) return;
  throw new TritonError(
    "UNSUPPORTED",
    "Server.attach() on Bun: a worker terminated while Triton holds its requests would leave " +
      "Triton's threads calling a JSCallback and cc()-compiled code of a thread that ended, " +
      "which Bun does not keep; stop the attached server before the worker ends and opt in with " +
      `{ allowBunWorkers: true } (or ${ALLOW_BUN_WORKERS_ENV}=1)`,
  );
}
