/**
 * What the front ends (`serve()` over HTTP, `serveGrpc()`) share about their life: the checked
 * listen options, the error when they cannot listen, and `close()` — stop accepting, let what is in flight finish or, after a
 * timeout, end it, then resolve `closed` — with the `signal` that closes too.
 *
 * @module
 */
import { describeValue, expectRecord, invalidArgument } from "../arguments.ts";
import { TritonError } from "../errors.ts";

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
}

/**
 * The service's `close()` and `closed`: idempotent; aborting `signal` closes as `close()` does.
 * `close({ timeout })` rejects INVALID_ARG for a timeout that is no number of milliseconds >= 0.
 */
export function closing(
  steps: ClosingSteps,
  signal: AbortSignal | undefined,
): {
  close(options?: { readonly timeout?: number }): Promise<void>;
  closed: Promise<void>;
} {
  let running: Promise<void> | undefined;
  let onClosed!: () => void;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const close = (options: { readonly timeout?: number } = {}): Promise<void> => {
    const timeout = options.timeout;
    if (timeout !== undefined && !(typeof timeout === "number" && timeout >= 0)) {
      return Promise.reject(
        new TritonError(
          "INVALID_ARG",
          `timeout must be a number of milliseconds >= 0, not ${describeValue(timeout)}`,
        ),
      );
    }
    return running ??= (async () => {
      signal?.removeEventListener("abort", abort);
      // Not awaited yet: a listener may close only once what is in flight is done.
      const stopped = steps.stopAccepting();
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
      onClosed();
    })();
  };
  const abort = () => void close();
  if (signal?.aborted) abort();
  else signal?.addEventListener("abort", abort, { once: true });
  return { close, closed };
}
