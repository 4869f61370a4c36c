/**
 * The native completion ring and its JS consumer.
 *
 * Producers are native functions on Triton's threads (the x86-64 routines, or Bun's C): each claims
 * a position with `lock xadd`, fills the slot, publishes it by storing its sequence number, and
 * wakes the consumer only if it announced that it sleeps. A full ring makes a producer
 * `sched_yield` until the consumer frees the slot — that is the backpressure: Triton's thread
 * waits, nothing is dropped. Layout: `ring_layout.ts`.
 *
 * The consumer is the JS thread. It reads slots through one long-lived typed-array view of the
 * ring (no FFI call per item) and hands each to the handler as `(kind, object, flags, userp)`,
 * always on a macrotask of its own: after a wake-up (a pipe the event loop watches, an eventfd
 * read that completed off the JS thread, or Bun's posted callback) or a `setImmediate`, never
 * inside a foreign thread's call.
 *
 * Sleeping: the consumer sets the `sleeping` flag (an atomic swap, a full barrier), re-checks the
 * ring, and only then waits; a producer swaps the flag back to 0 after publishing and wakes the
 * consumer only if it was set: at high load producers find it awake and make no system call. It
 * waits only while completions are expected ({@link RingConsumer.busy}), so an idle binding does
 * not keep the process alive.
 *
 * @module
 */
import type { CompletionHandler, CompletionKindValue } from "../completion_ring.ts";
import { macrotask } from "../macrotask.ts";
import { Socket } from "node:net";
import { createEventfd, createPipe, mapMemory, os } from "../os.ts";
import { ringBytes, RingLayout } from "./ring_layout.ts";
import type { FfiRuntime, Ptr } from "../types.ts";

const L = RingLayout;
const SLEEPING = L.SLEEPING >> 2;

/** The ring's native memory, read and written from JS. */
export class NativeRing {
  /** The ring's header address (what producers are given). */
  readonly address: Ptr;
  /** Number of slots (a power of two). */
  readonly capacity: number;
  readonly #i32: Int32Array;
  readonly #pointerAt: (offset: number) => Ptr;
  #head = 0;

  /**
   * Maps a new ring of `capacity` slots (never unmapped: producers may hold its address until the
   * process exits).
   */
  constructor(ffi: FfiRuntime, capacity: number) {
    if (capacity < 2 || (capacity & (capacity - 1)) !== 0 || capacity > 2 ** 30) {
      throw new Error(`ring capacity ${capacity} is not a power of two in [2, 2^30]`);
    }
    const bytes = ringBytes(capacity);
    this.capacity = capacity;
    this.address = mapMemory(ffi, bytes);
    this.#i32 = new Int32Array(ffi.view(this.address, bytes));
    this.#pointerAt = ffi.pointerReader(this.address, bytes);
    for (let i = 0; i < capacity; i++) this.#i32[(L.SLOTS + i * L.SLOT_SIZE) >> 2] = i;
  }

  /** Whether the next slot is filled. */
  ready(): boolean {
    const head = this.#head;
    const seq = (L.SLOTS + (head & (this.capacity - 1)) * L.SLOT_SIZE) >> 2;
    return Atomics.load(this.#i32, seq) === ((head + 1) | 0);
  }

  /**
   * Hands up to `budget` filled slots, oldest first, to `handler`; returns how many. Each slot is
   * freed before its handler runs, so a throwing handler loses only its own item.
   */
  drain(handler: CompletionHandler, budget: number): number {
    const i32 = this.#i32;
    const mask = this.capacity - 1;
    let n = 0;
    while (n < budget) {
      const head = this.#head;
      const offset = L.SLOTS + (head & mask) * L.SLOT_SIZE;
      const at = offset >> 2;
      if (Atomics.load(i32, at) !== ((head + 1) | 0)) break;
      const kind = i32[at + 1] as CompletionKindValue;
      const flags = i32[at + 2] >>> 0;
      const object = this.#pointerAt(offset + L.SLOT_OBJECT);
      const userp = (i32[at + 6] >>> 0) + (i32[at + 7] >>> 0) * 4294967296;
      Atomics.store(i32, at, (head + this.capacity) | 0); // free for the next lap
      this.#head = head + 1;
      n++;
      handler(kind, object, flags, userp);
    }
    return n;
  }

  /**
   * Announces that the consumer is about to sleep: sets the flag with a full barrier and
   * re-checks. Returns true when the ring is still empty (sleep); otherwise clears the flag.
   */
  prepareSleep(): boolean {
    Atomics.exchange(this.#i32, SLEEPING, 1);
    if (!this.ready()) return true;
    Atomics.store(this.#i32, SLEEPING, 0);
    return false;
  }

  /** Clears the sleeping flag (the consumer is awake). */
  awake(): void {
    Atomics.store(this.#i32, SLEEPING, 0);
  }
}

/**
 * How the consumer waits for a producer's wake-up. Producers wake it by writing 8 bytes to
 * {@link RingWaiter.fd} (or by calling a function pointer, on Bun).
 */
export interface RingWaiter {
  /** The file descriptor producers write to wake the consumer (-1 where they call instead). */
  readonly fd: number;
  /** Whether a pending wait keeps the event loop alive. */
  readonly keepsAlive: boolean;
  /** Waits; calls `woken` once, on a later macrotask of the JS thread, after a wake-up. */
  wait(woken: () => void): void;
  /** The consumer stopped waiting (nothing is expected): a pending wait must not keep the
   * process alive. A wake-up may still arrive and call `woken`. */
  cancel(): void;
  /** Completions are expected again while a wait is pending (after {@link cancel}): the pending
   * wait must keep the process alive again. */
  resume(): void;
}

/**
 * Waits on a pipe whose read end is a `node:net` socket, watched by the event loop itself (libuv
 * on Node, Deno's own loop through its Node compatibility): a wake-up costs one thread hop, as a C
 * client blocked on the pipe would. The socket is ref'd only while waiting. Deno and Node.
 */
export class PipeWaiter implements RingWaiter {
  readonly fd: number;
  readonly keepsAlive = true;
  readonly #socket: Socket;
  #woken: (() => void) | undefined;

  /** @throws {Error} where the runtime cannot watch a pipe it did not open. */
  constructor(ffi: FfiRuntime) {
    const [read, write] = createPipe(ffi);
    this.fd = write;
    this.#socket = new Socket({ fd: read, readable: true, writable: false });
    this.#socket.on("data", () => {
      this.#socket.unref();
      const woken = this.#woken;
      this.#woken = undefined;
      woken?.();
    });
    this.#socket.unref();
  }

  wait(woken: () => void): void {
    this.#woken = woken;
    this.#socket.ref();
  }

  cancel(): void {
    this.#socket.unref();
  }

  resume(): void {
    this.#socket.ref();
  }
}

/**
 * Waits on an eventfd with a blocking `read` that runs off the JS thread (Deno `nonblocking`,
 * koffi `fn.async`): two thread hops per wake-up, the read's thread then the event loop
 * (bench/README.md, "Costs the code is shaped by"). The fallback where {@link PipeWaiter} is
 * unavailable.
 */
export class EventfdWaiter implements RingWaiter {
  readonly fd: number;
  readonly keepsAlive = true;
  readonly #ffi: FfiRuntime;
  readonly #buffer = new BigUint64Array(1);
  readonly #one = new BigUint64Array([1n]);
  #pending = false;

  constructor(ffi: FfiRuntime) {
    this.#ffi = ffi;
    this.fd = createEventfd(ffi);
  }

  wait(woken: () => void): void {
    this.#pending = true;
    const done = () => {
      this.#pending = false;
      woken();
    };
    os(this.#ffi).async.read(this.fd, this.#buffer, 8).then(done, done);
  }

  cancel(): void {
    // A pending read keeps the event loop alive: end it (the consumer then finds nothing to do).
    if (this.#pending) os(this.#ffi).sync.write(this.fd, this.#one, 8);
  }

  resume(): void {
    // The read cancel() ended still completes, and the consumer, busy again, waits anew.
  }
}

/**
 * Bun's wait: nothing is pending in the event loop; producers call a threadsafe `JSCallback`,
 * which Bun posts to the JS thread without making them wait, and which runs {@link fire}.
 */
export class PostedWaiter implements RingWaiter {
  readonly fd = -1;
  readonly keepsAlive = false;
  #woken: (() => void) | undefined;

  wait(woken: () => void): void {
    this.#woken = woken;
  }

  cancel(): void {
    // Nothing keeps Bun's event loop alive here.
  }

  resume(): void {}

  /** Runs the pending wake-up, if any (spurious calls are harmless). */
  readonly fire = (): void => {
    const woken = this.#woken;
    this.#woken = undefined;
    woken?.();
  };
}

/** Completions handed to JS per macrotask before the consumer yields to other work. */
const DRAIN_BUDGET = 1024;

/** Consecutive fruitless polls after which the consumer polls only every {@link POLL_RETRY}th
 * time (until a poll pays off again). */
const POLL_GIVE_UP = 8;
/** While polling does not pay off, one wait in this many still polls. */
const POLL_RETRY = 16;

/** The consumer's states. */
const State = {
  /** Nothing pending: no completion is expected. */
  IDLE: 0,
  /** A drain or a poll is queued on a later macrotask. */
  SCHEDULED: 1,
  /** Waiting for a producer's wake-up. */
  WAITING: 2,
  /** Draining now. */
  RUNNING: 3,
} as const;

/**
 * Schedules the draining of a {@link NativeRing} on the JS thread.
 *
 * With a poll budget (`pollMicros` > 0), the consumer, when it finds the ring empty while
 * completions are expected, first polls it for up to that long on a macrotask of its own (after
 * the code the last completions resumed has run) and only then sleeps. A wake-up costs a thread
 * hop, and on virtual machines waking an idle vCPU costs tens of µs more; a completion that comes
 * within the budget costs neither. The poll blocks the event loop for at most the budget; after
 * {@link POLL_GIVE_UP} fruitless polls in a row (a slow model) only one wait in
 * {@link POLL_RETRY} polls, until a poll pays off again: finds completions, arriving while it
 * spins or already waiting when it begins.
 */
export class RingConsumer {
  readonly ring: NativeRing;
  readonly #waiter: RingWaiter;
  readonly #pollMs: number;
  #handler: CompletionHandler = () => {};
  #state: number = State.IDLE;
  #busy = false;
  #fruitless = 0;
  #waits = 0;

  /** @param pollMicros how long to poll an empty ring before sleeping, µs (0: never). */
  constructor(ring: NativeRing, waiter: RingWaiter, pollMicros = 0) {
    this.ring = ring;
    this.#waiter = waiter;
    this.#pollMs = pollMicros / 1000;
  }

  /** Sets the one receiver of completions. */
  setHandler(handler: CompletionHandler): void {
    this.#handler = handler;
  }

  /**
   * Whether the consumer keeps the event loop alive while busy: its pending wait does (pipe,
   * eventfd), and so does its queued drain or poll. Not on Bun, where nothing is pending.
   */
  get keepsAlive(): boolean {
    return this.#waiter.keepsAlive;
  }

  /** Completions are expected from now on (work went in flight): wait for them. */
  busy(): void {
    this.#busy = true;
    if (this.#state === State.IDLE) this.#next();
    else if (this.#state === State.WAITING) this.#waiter.resume();
  }

  /** No completion is expected any more: stop waiting once the ring is empty. */
  idle(): void {
    this.#busy = false;
    if (this.#state === State.WAITING) this.#waiter.cancel();
  }

  readonly #woken = (): void => {
    this.#state = State.RUNNING;
    this.ring.awake();
    try {
      this.ring.drain(this.#handler, DRAIN_BUDGET);
    } finally {
      if (this.ring.ready()) this.#schedule(this.#woken);
      else if (this.#busy) this.#next();
      else this.#state = State.IDLE;
    }
  };

  /** Polls the ring for up to the budget, then sleeps. */
  readonly #poll = (): void => {
    if (!this.ring.ready()) {
      if (!this.#busy) {
        this.#state = State.IDLE;
        return;
      }
      const deadline = performance.now() + this.#pollMs;
      while (!this.ring.ready()) {
        if (performance.now() >= deadline) {
          this.#fruitless++;
          this.#sleep();
          return;
        }
      }
    }
    // Completions came within the poll or before it began (under load, while the code the last
    // ones resumed ran): polling pays, as the C client's poll counts it.
    this.#fruitless = 0;
    this.#woken();
  };

  #schedule(fn: () => void): void {
    this.#state = State.SCHEDULED;
    macrotask(fn);
  }

  /** The ring is empty and completions are expected: poll (on a later macrotask), or sleep. */
  #next(): void {
    const poll = this.#pollMs > 0 &&
      (this.#fruitless < POLL_GIVE_UP || ++this.#waits % POLL_RETRY === 0);
    if (poll) this.#schedule(this.#poll);
    else this.#sleep();
  }

  #sleep(): void {
    if (this.ring.prepareSleep()) {
      this.#state = State.WAITING;
      this.#waiter.wait(this.#woken);
    } else {
      this.#schedule(this.#woken);
    }
  }
}
