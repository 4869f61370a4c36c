/**
 * What the front ends (`serve()` over HTTP, `serveGrpc()`) share about their life: the checked
 * listen options, the error when they cannot listen, the calls in flight ({@link Calls}), and
 * `close()` — stop accepting, let what is in flight finish or, after a timeout, end it, then
 * resolve `closed` — with the `signal` that closes too.
 *
 * @module
 */
import { expectRecord, invalidArgument, knownFields } from "../../src/value_checks.ts";
import { duration } from "../../src/durations.ts";
import { TritonError } from "../../src/errors.ts";

/** Where to listen, checked. */
export interface ListenOptions {
  readonly hostname: string;
  readonly port: number;
  readonly signal: AbortSignal | undefined;
}

/** The error of a front end that cannot listen on `host:port` (UNAVAILABLE, `e`'s message). */
export function cannotListen(host: string, port: number, e: unknown): TritonError {
  return new TritonError(
    "UNAVAILABLE",
    `cannot listen on ${host}:${port}: ${e instanceof Error ? e.message : e}`,
    { cause: e },
  );
}

/**
 * `options`' `hostname` (default 127.0.0.1), `port` (default `defaultPort`) and `signal`.
 * @param what the function, for messages (`"serve()"`).
 * @param fields the options it takes, for the message when `options` is no record.
 * @throws {TritonError} INVALID_ARG naming the bad field.
 */
export function listenOptions(
  what: string,
  options: unknown,
  fields: string,
  defaultPort: number,
): ListenOptions {
  expectRecord(`${what}'s options`, options, fields);
  const o = options as Record<string, unknown>;
  const hostname = o.hostname ?? "127.0.0.1";
  const port = o.port ?? defaultPort;
  if (typeof hostname !== "string" || hostname === "") {
    throw invalidArgument("hostname", "a non-empty string", hostname);
  }
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalidArgument("port", "an integer in [0, 65535]", port);
  }
  const signal = o.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument("signal", "an AbortSignal", signal);
  }
  return { hostname, port, signal };
}

/**
 * The calls a front end is serving, each with the controller that cancels its requests in Triton
 * (a streamed response or a gRPC stream counts until it ends), and who waits for none.
 */
export class Calls {
  readonly #calls = new Set<AbortController>();
  #waiters: (() => void)[] = [];

  /** How many calls are in flight. */
  get size(): number {
    return this.#calls.size;
  }

  /** A call begins: its controller, which {@link end} takes back. */
  begin(): AbortController {
    const controller = new AbortController();
    this.#calls.add(controller);
    return controller;
  }

  /** Whether the call of `controller` is still in flight. */
  has(controller: AbortController): boolean {
    return this.#calls.has(controller);
  }

  /** The call of `controller` ended (idempotent); the waiters resolve when none is left. */
  end(controller: AbortController): void {
    if (!this.#calls.delete(controller) || this.#calls.size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves when no call is in flight. */
  idle(): Promise<void> {
    return this.#calls.size === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Cancels every call in flight with `reason`. */
  abortAll(reason: unknown): void {
    for (const controller of this.#calls) controller.abort(reason);
  }
}

/** The steps of closing one front end. */
export interface ClosingSteps {
  /** Stops accepting; resolves once the listener is closed (awaited after {@link idle}). */
  stopAccepting(): Promise<void>;
  /** Resolves when nothing is being served. */
  idle(): Promise<void>;
  /** Ends what is still served once the timeout passed (and cancels its requests in Triton). */
  endInFlight(): void;
  /** What is left to do once idle and stopped (closing connections). */
  finish?(): Promise<void>;
  /** What closes beside this thread's listener, started with it and given the same timeout
   * (milliseconds, undefined: no limit): the service's worker threads. */
  alongside?(timeoutMs: number | undefined): Promise<void>;
}

/** The longest wait a timer takes (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What `close()` takes: how long the calls in flight may run on, in milliseconds. */
export interface CloseOptions {
  /** Milliseconds to wait for the calls in flight before ending them (their requests are
   * cancelled in Triton). Default: no limit. */
  readonly timeoutMs?: number;
}

/**
 * The service's `close()` and `closed`: idempotent; aborting `signal` closes as `close()` does.
 * `close({ timeoutMs })` rejects INVALID_ARG for a timeout that is no number of milliseconds >= 0
 * or an unknown field (`timeout`, the old name, included).
 */
export function closing(
  steps: ClosingSteps,
  signal: AbortSignal | undefined,
): {
  close(options?: CloseOptions): Promise<void>;
  closed: Promise<void>;
} {
  let running: Promise<void> | undefined;
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const close = (options: CloseOptions = {}): Promise<void> => {
    let timeout: number | undefined;
    try {
      expectRecord("close()'s options", options, "{ timeoutMs? }");
      knownFields("close()'s options", options as Record<string, unknown>, ["timeoutMs"], {
        timeout: "timeoutMs (milliseconds)",
      });
      timeout = options.timeoutMs === undefined
        ? undefined
        : duration("timeoutMs", options.timeoutMs, "milliseconds", 0);
      // Past what a timer can wait (it would fire at once): no limit.
      if (timeout !== undefined && timeout > MAX_TIMER_MS) timeout = undefined;
    } catch (e) {
      return Promise.reject(e);
    }
    return running ??= (async () => {
      signal?.removeEventListener("abort", abort);
      // Not awaited yet: a listener may close only once what is in flight is done.
      const stopped = steps.stopAccepting();
      const others = steps.alongside?.(timeout);
      if (timeout !== undefined) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = await Promise.race([
          steps.idle().then(() => false),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeout))),
        ]);
        clearTimeout(timer);
        if (late) steps.endInFlight();
      }
      await steps.idle();
      await stopped;
      await steps.finish?.();
      await others;
      onClosed();
    })();
  };
  const abort = () => void close();
  if (signal?.aborted) abort();
  else signal?.addEventListener("abort", abort, { once: true });
  return { close, closed };
}
