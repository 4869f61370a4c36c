/**
 * The `workers` and `allowBunWorkers` options of the HTTP front ends, checked: how many threads
 * serve, and whether this process can serve on more than one (worker_pool.ts).
 *
 * @module
 */
import { TritonError } from "../../src/errors.ts";
import { checkAttachRuntime } from "../../src/shared_server.ts";
import { describeValue } from "../../src/value_checks.ts";
import { runtimeName } from "../../ffi/mod.ts";
import type { WorkerSupport } from "./listen.ts";

/** The most threads one service may have. */
export const MAX_WORKERS = 256;

/** What the options say of workers. */
export interface WorkerOptions {
  /** Threads serving, the calling thread included. */
  readonly workers: number;
  readonly allowBunWorkers: boolean | undefined;
}

/**
 * `options`' `workers` (default 1) and `allowBunWorkers`.
 * @throws {TritonError} INVALID_ARG for a `workers` that is no integer in [1, 256], or an
 *   `allowBunWorkers` that is no boolean.
 */
export function workerOptions(what: string, options: unknown): WorkerOptions {
  const o = options as Record<string, unknown>;
  const workers = o.workers ?? 1;
  if (
    typeof workers !== "number" || !Number.isInteger(workers) || workers < 1 ||
    workers > MAX_WORKERS
  ) {
    throw new TritonError(
      "INVALID_ARG",
      `${what}: workers must be an integer in [1, ${MAX_WORKERS}], not ${describeValue(workers)}`,
    );
  }
  const allow = o.allowBunWorkers;
  if (allow !== undefined && typeof allow !== "boolean") {
    throw new TritonError(
      "INVALID_ARG",
      `${what}: allowBunWorkers must be a boolean, not ${describeValue(allow)}`,
    );
  }
  return { workers, allowBunWorkers: allow };
}

/**
 * Checks that the front end can serve on worker threads here, and returns the options its
 * workers start with.
 * @throws {TritonError} UNSUPPORTED when the front end has no workers, the server runs JS
 *   callbacks (`TRITONFFI_CALLBACKS=js`, or the native path fell back: a worker cannot attach to
 *   it), or on Bun without the opt-in (`allowBunWorkers`, `TRITONFFI_ALLOW_BUN_WORKERS=1`); INVALID_ARG for an
 *   option that cannot be posted to a worker; UNAVAILABLE when the server is not running.
 */
export function checkWorkers(
  what: string,
  support: WorkerSupport | undefined,
  allowBunWorkers: boolean | undefined,
): unknown {
  if (support === undefined) {
    throw new TritonError("UNSUPPORTED", `${what} serves on one thread only (workers: 1)`);
  }
  // Deno keeps Deno.serve's reusePort behind --unstable-net, and without it ends the process
  // (exit code 70) rather than throw; Deno.listenDatagram exists only with that flag.
  if (runtimeName() === "deno" && !hasDenoUnstableNet()) {
    throw new TritonError(
      "UNSUPPORTED",
      `${what}: workers > 1 on Deno needs the --unstable-net flag (or "unstable": ["net"] in ` +
        "deno.json): every worker listens on the same port with Deno.serve's reusePort, which " +
        "Deno keeps behind it",
    );
  }
  const info = support.server.info();
  if (info.callbacks !== "native") {
    throw new TritonError(
      "UNSUPPORTED",
      `${what}: workers > 1 needs the native callbacks (each worker attaches to the server, ` +
        `which a server running JS callbacks refuses); this one runs JS callbacks: ${
          info.fallbackReason ?? "TRITONFFI_CALLBACKS=js"
        }`,
    );
  }
  try {
    checkAttachRuntime(allowBunWorkers === undefined ? {} : { allowBunWorkers });
  } catch (e) {
    if (!(e instanceof TritonError)) throw e;
    throw new TritonError(
      e.code,
      `${what}: workers > 1 attaches each worker to the server. ${e.message}` +
        (e.code === "UNSUPPORTED" ? ` (here: the allowBunWorkers option)` : ""),
      { cause: e },
    );
  }
  const options = support.options();
  try {
    return structuredClone(options);
  } catch (e) {
    throw new TritonError(
      "INVALID_ARG",
      `${what}: with workers > 1 its options are posted to each worker, and these cannot be: ${
        e instanceof Error ? e.message : e
      }`,
      { cause: e },
    );
  }
}

/** Whether Deno's unstable network APIs are enabled (`--unstable-net`). */
function hasDenoUnstableNet(): boolean {
  const deno = (globalThis as { Deno?: Record<string, unknown> }).Deno;
  return typeof deno?.listenDatagram === "function";
}
